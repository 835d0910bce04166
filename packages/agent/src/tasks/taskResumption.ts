import { type LeaseFence, type TaskItem, TaskStatus } from "@axiom-lattice/protocols";
import { type TaskMessageDeps, resumeCallerThread, startTaskRun } from "./taskMessages";
import { taskOutcomeOf } from "./taskOutcome";
import {
  RESUMED_AT_KEY,
  RESUME_VALUE_KEY,
  type TaskRunRef,
  taskCallerOf,
  taskCallerRunOf,
  taskResumedAt,
  taskRunMessageId,
} from "./taskRunPlace";
import { type TaskRuntimeOptions, writeAnnounced, writeTask } from "./taskRuntimeDeps";

/** What resuming a task's run needs: the task store (and machine), and the queue its resume run goes on. */
export interface TaskResumeDeps extends TaskMessageDeps {
  tasks: TaskRuntimeOptions;
  /** The lease tenure the resume is written under (a delegated task run's end, under its thread's run lease). */
  fence?: LeaseFence;
}

/**
 * Resumes the run of `task` (as read) with `value`: compare-and-set on that version to `in_progress`
 * (a project task under its machine, fenced), stamping `context.resumed_at` and `resume_value`, which
 * makes the resume command the task's current run (the one whose end settles it, and which whoever
 * finds it missing, like the admissions sweep, queues again). Then announces it and queues that run.
 * Null when the task changed since it was read: nothing is written.
 */
export async function resumeTaskRun({ tasks, fence, ...runs }: TaskResumeDeps, task: TaskItem, value: unknown): Promise<TaskItem | null> {
  const context = { ...task.context, [RESUMED_AT_KEY]: new Date().toISOString(), [RESUME_VALUE_KEY]: value ?? null };
  const resumed = await writeTask(tasks, task, (fencingToken) =>
    writeAnnounced(tasks, (store) => store.updateIfSnapshot(task.tenantId, task.id, task, { status: TaskStatus.IN_PROGRESS, context }, { fencingToken, fence })),
  );
  if (!resumed) return null;
  await startTaskRun(runs, resumed);
  return resumed;
}

/** Statuses the run that delegated may be in when the outcome comes: still ending, or ended waiting for it. */
const AWAITING_OUTCOME: readonly TaskStatus[] = [TaskStatus.IN_PROGRESS, TaskStatus.INTERRUPTED];

/** Rounds of reading and compare-and-set before giving up on a caller task that keeps changing. */
const RESUME_ATTEMPTS = 5;

/**
 * Resumes the run that delegated `task` (if one did) with the task's outcome. Whoever settles the
 * task calls this (the run's end, a cancel, orphan recovery), and may call it again: the caller
 * resumes once. A caller that is a task's run resumes as that task's current run (see
 * {@link resumeCallerTask}); any other caller's thread gets a resume command.
 */
export async function resumeCaller(deps: TaskResumeDeps, task: TaskItem): Promise<boolean> {
  const callerRun = taskCallerRunOf(task);
  if (callerRun) return resumeCallerTask(deps, callerRun, task);
  const caller = taskCallerOf(task);
  return caller ? resumeCallerThread(deps, caller, task) : false;
}

/**
 * Resumes the caller task's run that delegated `task`, making the resume its current run: so the
 * resume run's end settles the caller task. Only while that run is still the caller task's current
 * one: a caller task dispatched or resumed otherwise since, or cancelled, is left alone. The outcome
 * may come before the delegating run has even ended (it is then still `in_progress`): that run's end
 * settles nothing, the resume run queued behind it on the thread does. Called again (a settlement
 * re-run after a crash), it queues the same resume run once more, which the queue ignores.
 */
async function resumeCallerTask(deps: TaskResumeDeps, callerRun: TaskRunRef, task: TaskItem): Promise<boolean> {
  const outcome = taskOutcomeOf(task);
  for (let attempt = 0; attempt < RESUME_ATTEMPTS; attempt++) {
    const caller = await deps.tasks.store.getTask(task.tenantId, callerRun.taskId);
    if (!caller) return false;
    if (caller.status === TaskStatus.IN_PROGRESS && isResumedWith(caller, task.id)) return startTaskRun(deps, caller);
    if (taskRunMessageId(caller) !== callerRun.messageId || !AWAITING_OUTCOME.includes(caller.status)) return false;
    if (await resumeTaskRun(deps, caller, outcome)) return true;
  }
  throw new Error(`Task ${callerRun.taskId} kept changing while it was being resumed with the outcome of ${task.id}`);
}

/** Whether the task's current run is the resume with the outcome of delegated task `taskId`. */
function isResumedWith(task: TaskItem, taskId: string): boolean {
  const value = task.context?.[RESUME_VALUE_KEY];
  return taskResumedAt(task) !== undefined && typeof value === "object" && value !== null && (value as { taskId?: unknown }).taskId === taskId;
}
