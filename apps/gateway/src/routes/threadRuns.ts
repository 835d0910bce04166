import type { IMessageQueueStore, QueueScope } from "@axiom-lattice/protocols";
import { toRunRecordView } from "./threadViews";

/** A thread's run records: its latest finished runs, oldest first, then the one in progress. */
export async function threadRunRecords(queue: IMessageQueueStore, threadId: string, scope: QueueScope) {
  // Running ones first: one that finishes between the reads is then found finished, never missed.
  const running = await queue.getProcessingMessages(threadId, scope);
  const finished = await queue.listRuns(threadId, scope);
  const finishedIds = new Set(finished.map((run) => run.id));
  return [...finished, ...running.filter((run) => !finishedIds.has(run.id))].map(toRunRecordView);
}
