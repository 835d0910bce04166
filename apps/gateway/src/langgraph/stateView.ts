import { type Agent, clientCheckpointOf, clientStateValues, toClientJson } from "@axiom-lattice/agent";
import { z } from "zod";

/** A checkpointed state as LangGraph reads it (the runtime's `StateSnapshot`). */
export type StateSnapshot = Awaited<ReturnType<Agent["stateSnapshot"]>>;

const jsonObject = z.record(z.string(), z.unknown());

/** An `interrupt()` the thread waits on, as LangGraph shows it. */
export const interruptView = z.object({ id: z.string().optional(), value: z.unknown() });

/** Where a state was checkpointed: the client's thread id, never the checkpointer's. */
const checkpointView = z.object({
  thread_id: z.string(),
  checkpoint_ns: z.string(),
  checkpoint_id: z.string().nullable(),
  checkpoint_map: z.null(),
});

/** A thread's state at one checkpoint, as LangGraph's `ThreadState`. */
export const threadStateView = z.object({
  values: jsonObject.describe("The state's channels: `messages` (the runtime's own bookkeeping left out)"),
  next: z.array(z.string()).describe("Nodes due next: non-empty while a run is unfinished or interrupted"),
  tasks: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      path: z.array(z.unknown()).describe("Where the task sits in the graph, as LangGraph names it (`[\"__pregel_pull\", node]`)"),
      error: z.string().nullable(),
      interrupts: z.array(interruptView),
      checkpoint: z
        .object({ thread_id: z.string(), checkpoint_ns: z.string() })
        .nullable()
        .describe("A subgraph's task: where its state is (read it, or update it, naming this checkpoint)"),
      state: z.unknown().describe("A subgraph's task, read with `subgraphs`: its state, as this one (else null)"),
      result: z.unknown().describe("What the task returned, once it ran; null before"),
    }),
  ),
  metadata: jsonObject.nullable(),
  created_at: z.string().nullable(),
  checkpoint: checkpointView,
  parent_checkpoint: checkpointView.nullable(),
}).meta({ id: "LangGraphThreadState" });

export type ThreadStateView = z.input<typeof threadStateView>;

/** The interrupts a state waits on, grouped by the task that raised them (as a LangGraph thread lists them). */
export function interruptsByTask(snapshot: StateSnapshot): Record<string, Array<z.input<typeof interruptView>>> {
  return Object.fromEntries(snapshot.tasks.filter((task) => task.interrupts.length > 0).map((task) => [task.id, task.interrupts.map(({ id, value }) => ({ id, value }))]));
}

/**
 * A subgraph's task's state as LangGraph gives it: read (`subgraphs`), or where to read it (the
 * config of the subgraph's namespace); neither for a node's task.
 */
function subgraphStateOf(threadId: string, state: StateSnapshot["tasks"][number]["state"]): Pick<TaskView, "checkpoint" | "state"> {
  if (state && "values" in state) return { checkpoint: null, state: toThreadState(threadId, state) };
  const namespace = state?.configurable?.checkpoint_ns;
  return { checkpoint: typeof namespace === "string" && namespace !== "" ? { thread_id: threadId, checkpoint_ns: namespace } : null, state: null };
}

type TaskView = ThreadStateView["tasks"][number];

/** A checkpointed state of thread `threadId` as LangGraph clients read it. */
export function toThreadState(threadId: string, snapshot: StateSnapshot): ThreadStateView {
  return {
    values: clientStateValues(snapshot.values as Record<string, unknown>),
    next: [...snapshot.next],
    tasks: snapshot.tasks.map((task) => ({
      id: task.id,
      name: task.name,
      path: toClientJson(task.path ?? []) as unknown[],
      error: task.error === undefined || task.error === null ? null : String((task.error as { message?: unknown }).message ?? task.error),
      interrupts: task.interrupts.map(({ id, value }) => ({ id, value })),
      ...subgraphStateOf(threadId, task.state),
      result: task.result === undefined ? null : toClientJson(task.result),
    })),
    // The checkpointer's thread id is tenant-qualified: clients know the thread by its own.
    metadata: snapshot.metadata ? (toClientJson({ ...snapshot.metadata, thread_id: threadId }) as Record<string, unknown>) : null,
    created_at: snapshot.createdAt ?? null,
    checkpoint: clientCheckpointOf(threadId, snapshot.config),
    parent_checkpoint: snapshot.parentConfig ? clientCheckpointOf(threadId, snapshot.parentConfig) : null,
  };
}
