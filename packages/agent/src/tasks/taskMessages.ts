import { DuplicateMessageError, type MessageQueueStore, type ThreadRunScope, queueScopeOf } from "@axiom-lattice/core";
import type { TaskItem } from "@axiom-lattice/protocols";
import type { RunContent } from "../runtime/runContent";
import { taskOutcomeOf } from "./taskOutcome";
import { callerResumeMessageId, RESUME_VALUE_KEY, taskResumedAt, taskRunMessageId, taskRunThreadOf } from "./taskRunPlace";

export interface TaskMessageDeps {
  queue: MessageQueueStore;
  /** Gets the thread processed (this replica's processor, the peers' wake-up). */
  wake(scope: ThreadRunScope): Promise<void> | void;
}

/** Thrown when a task that has no run thread recorded is started. */
export class TaskNotPlacedError extends Error {
  constructor(taskId: string) {
    super(`Task ${taskId} has no run thread in its context`);
    this.name = "TaskNotPlacedError";
  }
}

/**
 * Queues `content` on the thread under a fixed id, then wakes the thread. Whoever owes the message may
 * send it again after a crash: the queue refuses a second message of the same id, so it runs once.
 * The thread is woken either way, since a crash may have come between an earlier enqueue and its
 * wake-up. Returns whether this call enqueued it.
 */
async function enqueueOnce(deps: TaskMessageDeps, thread: ThreadRunScope, id: string, content: RunContent): Promise<boolean> {
  let enqueued = true;
  try {
    await deps.queue.addMessage({ id, threadId: thread.threadId, scope: queueScopeOf(thread), content });
  } catch (error) {
    if (!(error instanceof DuplicateMessageError)) throw error;
    enqueued = false;
  }
  await deps.wake(thread);
  return enqueued;
}

/** What the task's owner is asked to do. */
const taskPrompt = (task: TaskItem) => task.description?.trim() || task.title;

/** What the task's current run does: answer the question of a resumed run, else the task's prompt. */
function currentRunContent(task: TaskItem): RunContent {
  const marker = { taskId: task.id };
  if (taskResumedAt(task) !== undefined) return { command: { resume: task.context?.[RESUME_VALUE_KEY] ?? null }, task: marker };
  return { message: taskPrompt(task), task: marker };
}

/**
 * Queues (once per dispatch or resume) the task's current run on its run thread: a message carrying
 * the trusted task marker, whose run's end settles the task.
 */
export async function startTaskRun(deps: TaskMessageDeps, task: TaskItem): Promise<boolean> {
  const thread = taskRunThreadOf(task);
  if (!thread) throw new TaskNotPlacedError(task.id);
  return enqueueOnce(deps, thread, taskRunMessageId(task), currentRunContent(task));
}

/**
 * Resumes the waiting thread of a delegated task with the task's outcome (a resume command under a
 * fixed id, so the caller resumes once however often this is called).
 */
export async function resumeCallerThread(deps: TaskMessageDeps, caller: ThreadRunScope, task: TaskItem): Promise<boolean> {
  return enqueueOnce(deps, caller, callerResumeMessageId(task.id), { command: { resume: taskOutcomeOf(task) } });
}
