import type { StateSnapshot } from "@langchain/langgraph";

/** An `interrupt()` the graph is waiting on; `value` is what the graph asked (e.g. the question). */
export interface PendingInterrupt {
  id?: string;
  value: unknown;
}

/** The interrupts a thread's checkpointed state waits on (empty unless it is paused for a human). */
export function pendingInterrupts(snapshot: StateSnapshot): PendingInterrupt[] {
  return snapshot.tasks.flatMap((task) => task.interrupts.map(({ id, value }) => ({ id, value })));
}
