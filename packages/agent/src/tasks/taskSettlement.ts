import type { FinishedRunStatus, ThreadRunScope } from "@axiom-lattice/core";
import { type LeaseFence, type TaskItem, TaskStatus, type UpdateTaskRequest } from "@axiom-lattice/protocols";
import { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import type { PendingInterrupt } from "../graph/pendingInterrupts";
import { messagesOfRun } from "../graph/runBoundaries";
import type { RunOutcomeDetails } from "../runtime/runChunks";
import { type RuntimeContext, type StateContext, readThreadState } from "../runtime/runtimeContext";
import { resumeCaller } from "./taskResumption";
import { taskRunMessageId } from "./taskRunPlace";
import { writeAnnounced, writeTask } from "./taskRuntimeDeps";

/** How a task's run ended, as the task records it. */
export interface TaskRunEnd {
  status: FinishedRunStatus;
  error?: string;
  /** The run's last answer (success). */
  answer?: string;
  interrupts?: PendingInterrupt[];
}

/** A task in one of these is still owed an outcome; any other status is settled. */
const UNSETTLED: readonly TaskStatus[] = [TaskStatus.PENDING, TaskStatus.IN_PROGRESS];

export const isSettled = (task: Pick<TaskItem, "status">) => !UNSETTLED.includes(task.status);

/** The write that records the run's end on its task. */
export function settlementOf(task: Pick<TaskItem, "requireReview">, end: TaskRunEnd): UpdateTaskRequest {
  switch (end.status) {
    case "success":
      return { status: task.requireReview ? TaskStatus.REVIEW : TaskStatus.COMPLETED, result: end.answer ?? "" };
    case "interrupted":
      return { status: TaskStatus.INTERRUPTED, result: { interrupts: end.interrupts ?? [] } };
    case "aborted":
      return { status: TaskStatus.CANCELLED, failureReason: end.error ?? "Run aborted" };
    default:
      return { status: TaskStatus.FAILED, failureReason: end.error ?? "Run failed" };
  }
}

/**
 * Records the end of a task's run (its run message `messageId`): moves the task out of
 * `in_progress` (compare-and-set on the version read, so a cancel, an orphan recovery or a resume
 * that got there first wins), announces it, and resumes the delegating caller with the task's
 * outcome, whatever settled it. Only the task's current run settles it: read and write are one
 * compare-and-set, so a resume that makes another run current meanwhile is never overwritten.
 * Called before the run's message completes, so a crash in between re-runs the message, which finds
 * its checkpoint done and settles again: every step is idempotent. Its writes are made under `fence`,
 * the run's tenure of its thread-run lease: a paused replica's late settlement is refused.
 */
export async function settleTaskRun(context: Pick<RuntimeContext, "tasks" | "queue" | "wake">, tenantId: string, taskId: string, messageId: string, end: TaskRunEnd, fence?: LeaseFence): Promise<TaskItem | null> {
  const options = context.tasks;
  if (!options) return null;
  const { store } = options;
  const callerDeps = { queue: context.queue, wake: context.wake, tasks: options, fence };
  for (;;) {
    const task = await store.getTask(tenantId, taskId);
    if (!task) return null;
    // A run of an earlier dispatch or resume (cancelled and dispatched again, or interrupted and resumed,
    // meanwhile) ends late: the task's in_progress is its current run's, which that run settles.
    if (taskRunMessageId(task) !== messageId) return task;
    if (task.status !== TaskStatus.IN_PROGRESS) {
      if (isSettled(task)) await resumeCaller(callerDeps, task);
      return task;
    }
    const settled = await writeTask(options, task, (fencingToken) =>
      writeAnnounced(options, (tasks) => tasks.updateIfSnapshot(tenantId, taskId, task, settlementOf(task, end), { fencingToken, fence })),
    );
    if (!settled) continue;
    await resumeCaller(callerDeps, settled);
    return settled;
  }
}

/** The task run's end as its thread's checkpoint tells it: the outcome and the run's last answer. */
export async function taskRunEnd(context: StateContext, scope: ThreadRunScope, messageId: string, outcome: RunOutcomeDetails): Promise<TaskRunEnd> {
  const end: TaskRunEnd = { ...outcome };
  if (outcome.status !== "success") return end;
  const state = await readThreadState(context, scope);
  const answer = messagesOfRun(state.values, messageId)
    .filter((message) => AIMessage.isInstance(message) || AIMessageChunk.isInstance(message))
    .at(-1);
  if (answer) end.answer = answer.text;
  return end;
}
