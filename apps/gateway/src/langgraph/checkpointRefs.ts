import type { Agent } from "@axiom-lattice/agent";
import { z } from "zod";
import { HttpError } from "../http/errors";

/**
 * A checkpoint as LangGraph clients name it: its id, its namespace (a subgraph's, `node:task id`; the
 * root graph's is empty), or both. The thread's id and a checkpoint map may ride along, unread.
 */
export const checkpointObject = z.looseObject({
  checkpoint_id: z.string().min(1).max(128).optional(),
  checkpoint_ns: z.string().max(256).optional(),
});

/**
 * The earlier checkpoint a run or a state update starts from, as LangGraph clients name it:
 * `checkpoint_id`, or `checkpoint` (`{ checkpoint_id, checkpoint_ns }`; a state update may name a
 * subgraph's namespace alone, for the subgraph's latest state).
 */
export const checkpointRefShape = {
  checkpoint_id: z.string().min(1).max(128).optional().describe("Start from this earlier checkpoint of the thread: the thread goes on from there (a fork)"),
  checkpoint: checkpointObject.nullable().optional().describe("As checkpoint_id, or a subgraph's state (`checkpoint_ns`, as a state's task names it)"),
};

type CheckpointRef = { checkpoint_id?: string | undefined; checkpoint?: z.output<typeof checkpointObject> | null | undefined };

/** Where a state is read or written: a checkpoint (default the latest), in the root graph or a subgraph. */
export interface StateAddress {
  checkpointId?: string;
  checkpointNs?: string;
}

/** The checkpoint a state read or update names. */
export function stateAddressOf(body: CheckpointRef): StateAddress {
  const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id;
  const checkpointNs = body.checkpoint?.checkpoint_ns;
  return { ...(checkpointId === undefined ? {} : { checkpointId }), ...(checkpointNs ? { checkpointNs } : {}) };
}

/** The checkpoint id a run starts from, if any; a subgraph's namespace is refused (`NOT_SUPPORTED`): a run starts in the root graph. */
export function checkpointIdOf(body: CheckpointRef): string | undefined {
  if (body.checkpoint?.checkpoint_ns) throw new HttpError("NOT_SUPPORTED", "checkpoint.checkpoint_ns is not supported on a run: a run starts from a checkpoint of the root graph");
  return stateAddressOf(body).checkpointId;
}

/** The thread's state at a checkpoint (with `subgraphs`, its subgraphs' too); 404 when it is none of the thread's checkpoints. */
export async function requireCheckpoint(agent: Agent, threadId: string, address: StateAddress & { subgraphs?: boolean }): Promise<Awaited<ReturnType<Agent["stateSnapshot"]>>> {
  const snapshot = await agent.stateSnapshot(address);
  if (snapshot.createdAt === undefined) {
    const named = [address.checkpointId, address.checkpointNs && `in ${address.checkpointNs}`].filter(Boolean).join(" ");
    throw new HttpError("NOT_FOUND", `Checkpoint ${named} of thread ${threadId} not found`);
  }
  return snapshot;
}
