import type { ThreadRunScope } from "@axiom-lattice/core";
import type { TaskItem } from "@axiom-lattice/protocols";

// Where a task runs and who waits for it are kept in the task's `context`, so every replica (and the
// `task:recover` CLI) finds them in the store: nothing about a task lives in one process's memory.

/** `context` key: the thread whose run waits (interrupted) for the task's outcome. */
export const TASK_CALLER_KEY = "caller";
/** `context` key: the thread the task runs on. */
export const TASK_RUN_KEY = "run";
/** `context` key: when the task was last dispatched (ISO time); a start is owed for it. */
export const EXECUTION_REQUESTED_AT_KEY = "execution_requested_at";

/** `context` key: when the task's interrupted run was last resumed (ISO time); a resume run is owed for it. */
export const RESUMED_AT_KEY = "resumed_at";
/** `context` key: the value that resume hands to the question the run asked. */
export const RESUME_VALUE_KEY = "resume_value";

/** The thread an agent task runs on: one per task, on its owner assistant. */
export const taskThreadId = (taskId: string): string => `task-${taskId}`;

/**
 * The queue id of the message that starts a task's run. One per dispatch (a task may be dispatched
 * again after it ended), and the same on every replica, so starting twice enqueues once.
 */
export function taskStartMessageId(task: Pick<TaskItem, "id" | "context">): string {
  const attempt = timeOf(task, EXECUTION_REQUESTED_AT_KEY);
  return Number.isFinite(attempt) ? `task-${task.id}-start-${attempt}` : `task-${task.id}-start`;
}

const timeOf = (task: Pick<TaskItem, "context">, key: string): number => {
  const at = task.context?.[key];
  return typeof at === "string" ? Date.parse(at) : Number.NaN;
};

/** When the task was resumed after its last dispatch request, if it was (ms). */
export function taskResumedAt(task: Pick<TaskItem, "context">): number | undefined {
  const resumedAt = timeOf(task, RESUMED_AT_KEY);
  if (!Number.isFinite(resumedAt)) return undefined;
  const requestedAt = timeOf(task, EXECUTION_REQUESTED_AT_KEY);
  return Number.isFinite(requestedAt) && requestedAt > resumedAt ? undefined : resumedAt;
}

/**
 * The queue id of the task's current run: the resume command of its last resume when it was resumed
 * after its last dispatch, else its start. Only that run's end settles the task; every replica derives
 * the same id, so queueing it twice queues once.
 */
export function taskRunMessageId(task: Pick<TaskItem, "id" | "context">): string {
  const resumedAt = taskResumedAt(task);
  return resumedAt === undefined ? taskStartMessageId(task) : `task-${task.id}-resume-run-${resumedAt}`;
}

/** The queue id of the resume command that hands a task's outcome to its caller: at most one. */
export const callerResumeMessageId = (taskId: string): string => `task-${taskId}-resume`;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function readScope(task: Pick<TaskItem, "tenantId" | "context">, key: string): ThreadRunScope | undefined {
  const place = task.context?.[key];
  if (!isRecord(place) || typeof place.assistantId !== "string" || typeof place.threadId !== "string") return undefined;
  return { tenantId: task.tenantId, assistantId: place.assistantId, threadId: place.threadId };
}

/** The caller's thread of a delegated task, waiting for its outcome. */
export const taskCallerOf = (task: Pick<TaskItem, "tenantId" | "context">) => readScope(task, TASK_CALLER_KEY);

/** The run of a task that delegated: the task, and its run message that waits for the outcome. */
export interface TaskRunRef {
  taskId: string;
  messageId: string;
}

/** The caller's run of a delegated task, when the caller is itself a task's run. */
export function taskCallerRunOf(task: Pick<TaskItem, "context">): TaskRunRef | undefined {
  const place = task.context?.[TASK_CALLER_KEY];
  if (!isRecord(place) || typeof place.taskId !== "string" || typeof place.messageId !== "string") return undefined;
  return { taskId: place.taskId, messageId: place.messageId };
}

/** The thread the task runs (or ran) on, once started. */
export const taskRunThreadOf = (task: Pick<TaskItem, "tenantId" | "context">) => readScope(task, TASK_RUN_KEY);

/** The `context` entry recording a thread. */
export const placeEntry = ({ assistantId, threadId }: ThreadRunScope) => ({ assistantId, threadId });

/** The `context` entry recording a delegated task's caller: its thread, and its task's run if it is one. */
export const callerEntry = (caller: ThreadRunScope, callerRun: TaskRunRef | undefined) => ({ ...placeEntry(caller), ...callerRun });
