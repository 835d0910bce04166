import type { Agent } from "@axiom-lattice/agent";
import { z } from "zod";
import { HttpError } from "../http/errors";

/**
 * The earlier checkpoint a run or a state update starts from, as LangGraph clients name it: `checkpoint_id`, or
 * `checkpoint` (`{ checkpoint_id, checkpoint_ns }`, the graph's own namespace only: it has no subgraphs).
 */
export const checkpointRefShape = {
  checkpoint_id: z.string().min(1).max(128).optional().describe("Start from this earlier checkpoint of the thread: the thread goes on from there (a fork)"),
  checkpoint: z
    .looseObject({ checkpoint_id: z.string().min(1).max(128), checkpoint_ns: z.string().max(256).optional() })
    .nullable()
    .optional()
    .describe("As checkpoint_id"),
};

type CheckpointRef = { checkpoint_id?: string | undefined; checkpoint?: { checkpoint_id: string; checkpoint_ns?: string | undefined } | null | undefined };

/** The checkpoint id a request names, if any; a subgraph's namespace is refused (`NOT_SUPPORTED`). */
export function checkpointIdOf(body: CheckpointRef): string | undefined {
  if (body.checkpoint?.checkpoint_ns) throw new HttpError("NOT_SUPPORTED", "checkpoint.checkpoint_ns is not supported by this gateway (the graph has no subgraphs)");
  return body.checkpoint_id ?? body.checkpoint?.checkpoint_id;
}

/** The thread's state at `checkpointId`; 404 when it is none of the thread's checkpoints. */
export async function requireCheckpoint(agent: Agent, threadId: string, checkpointId: string): Promise<Awaited<ReturnType<Agent["stateSnapshot"]>>> {
  const snapshot = await agent.stateSnapshot({ checkpointId });
  if (snapshot.createdAt === undefined) throw new HttpError("NOT_FOUND", `Checkpoint ${checkpointId} of thread ${threadId} not found`);
  return snapshot;
}
