import type { MessageQueueStore, PendingMessage, ThreadQueueRef } from "@axiom-lattice/protocols";
import { walkPages } from "./pageWalk";

/** The thread's run records (its completed messages), oldest first: every page of the queue's `listRuns`. */
export async function runRecords(queue: Pick<MessageQueueStore, "listRuns">, thread: ThreadQueueRef): Promise<PendingMessage[]> {
  return (await walkPages((page) => queue.listRuns(thread, page), 1000)).items;
}
