import { DuplicateMessageError, type IMessageQueueStore, type ThreadRunScope } from "@axiom-lattice/core";
import type { TaskItem } from "@axiom-lattice/protocols";
import type { RunContent } from "../runtime/runContent";
import { taskOutcomeOf } from "./taskOutcome";
import { callerResumeMessageId, taskCallerOf } from "./taskRunPlace";

export interface CallerResumeDeps {
  queue: IMessageQueueStore;
  /** Gets the caller's thread processed (this replica's processor, the peers' wake-up). */
  wake(scope: ThreadRunScope): Promise<void> | void;
}

/**
 * Resumes the run that delegated `task` (if one did) with the task's outcome: a resume command on the
 * caller's thread, under an id derived from the task. Whoever settles the task calls this (the run's
 * end, a cancel, orphan recovery), and may call it again after a crash: the queue refuses a second
 * message of the same id, so the caller resumes once. Returns whether this call enqueued it.
 */
export async function resumeCaller({ queue, wake }: CallerResumeDeps, task: TaskItem): Promise<boolean> {
  const caller = taskCallerOf(task);
  if (!caller) return false;
  const content: RunContent = { command: { resume: taskOutcomeOf(task) } };
  let enqueued = true;
  try {
    await queue.addMessage({
      id: callerResumeMessageId(task.id),
      threadId: caller.threadId,
      scope: { tenantId: caller.tenantId, assistantId: caller.assistantId },
      content,
    });
  } catch (error) {
    if (!(error instanceof DuplicateMessageError)) throw error;
    enqueued = false;
  }
  // Woken either way: a crash may have come between an earlier enqueue and its wake-up.
  await wake(caller);
  return enqueued;
}
