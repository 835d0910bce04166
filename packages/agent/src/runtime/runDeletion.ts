import { type PendingMessage, type ThreadRunScope, queueScopeOf } from "@axiom-lattice/core";
import { RunInProgressError } from "./errors";
import { type RuntimeContext, bufferKey } from "./runtimeContext";

/** What deleting a run touches: its message, its event log and this replica's buffer of it. */
type RunDeletionContext = Pick<RuntimeContext, "queue" | "runEvents" | "buffers">;

/**
 * Deletes the run of `messageId` unless it is in progress: a queued one (it never runs) or an ended
 * one (its record), with its event log and this replica's buffer of it; its checkpoints stay, the
 * thread's state as it is. Answers the run as it stood, `null` when the thread has no such run; a run
 * a replica holds throws {@link RunInProgressError} (judged with the claim: never deleted once claimed).
 */
export async function deleteRun(context: RunDeletionContext, scope: ThreadRunScope, messageId: string): Promise<PendingMessage | null> {
  const { queue, runEvents, buffers } = context;
  const run = await queue.deleteMessage(scope, messageId);
  if (!run) return null;
  if (run.status === "processing") throw new RunInProgressError(messageId);
  // A run's final events are logged just after it completes: any logged after this are left to retention.
  await runEvents?.log.deleteRun({ ...scope, messageId });
  buffers.deleteWithPrefix(bufferKey(scope, run));
  return run;
}

/**
 * `multitask_strategy: rollback`, applied by the run that replaces them, before it runs (under the
 * thread's run lease, so each has ended by then): deletes those of `runIds` that were stopped
 * (`aborted`). One that ended on its own first is kept, as the platform keeps a run it could not
 * cancel. Idempotent: a re-run of the replacing run finds them gone. Answers the runs it deleted.
 */
export async function deleteRolledBackRuns(context: RunDeletionContext, scope: ThreadRunScope, runIds: readonly string[]): Promise<string[]> {
  const deleted: string[] = [];
  for (const runId of runIds) {
    const run = await context.queue.getMessage(runId, queueScopeOf(scope));
    if (run?.threadId === scope.threadId && run.status === "completed" && run.runStatus === "aborted") {
      await deleteRun(context, scope, runId);
      deleted.push(runId);
    }
  }
  return deleted;
}
