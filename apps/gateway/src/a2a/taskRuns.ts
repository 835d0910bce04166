import type { MessageQueueStore, PendingMessage, QueueScope } from "@axiom-lattice/protocols";

/**
 * An A2A task is a run, and the runs that answered its interrupts: the first run's id is the task's
 * id; the input that resumes it after its `n`th interrupt is run `<task>.<n>`. The ids alone chain
 * them, so any replica finds a task's current run in the queue store, with no record of its own; two
 * clients answering the same interrupt at once race for one id, and the queue refuses the second.
 */

/** How many inputs one task takes at most: the chain is walked on every read. */
export const MAX_TASK_INPUTS = 50;

const CONTINUATION = /\.\d{1,3}$/;

/** Whether `id` names a task (a chain's first run), not one of the runs that continue one. */
export const isTaskId = (id: string): boolean => !CONTINUATION.test(id);

/** The id of the run that takes a task's `n`th input after its first (`n` from 1). */
export const continuationId = (taskId: string, n: number): string => `${taskId}.${n}`;

/** The task a run belongs to: itself, or the task whose interrupt it answers. */
export const taskIdOfRun = (runId: string): string => runId.replace(CONTINUATION, "");

/** A task's runs, first to current; `undefined` when there is no such task in `scope`. */
export async function taskRuns(queue: Pick<MessageQueueStore, "getMessage">, scope: QueueScope, taskId: string): Promise<PendingMessage[] | undefined> {
  if (!isTaskId(taskId)) return undefined;
  const first = await queue.getMessage(taskId, scope);
  if (!first) return undefined;
  const runs = [first];
  for (let n = 1; n <= MAX_TASK_INPUTS; n++) {
    const next = await queue.getMessage(continuationId(taskId, n), scope);
    if (!next || next.threadId !== first.threadId) break;
    runs.push(next);
  }
  return runs;
}
