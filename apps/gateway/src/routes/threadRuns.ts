import type { MessageQueueStore, Page, PageRequest, PendingMessage, ThreadQueueRef } from "@axiom-lattice/protocols";

/**
 * A page of a thread's run records: its finished runs, oldest first; the last page ends with the
 * runs in progress (normally one), so it may hold that many more than the page's limit.
 */
export async function threadRunsPage(queue: MessageQueueStore, thread: ThreadQueueRef, page: PageRequest): Promise<Page<PendingMessage>> {
  // Running ones first: one that finishes between the reads is then found finished, never missed.
  const running = await queue.getProcessingMessages(thread);
  const finished = await queue.listRuns(thread, page);
  if (finished.nextCursor !== null) return finished;
  const finishedIds = new Set(finished.items.map((run) => run.id));
  return { items: [...finished.items, ...running.filter((run) => !finishedIds.has(run.id))], nextCursor: null };
}

/** What a thread's run list says of its order and pages. */
export const THREAD_RUNS_DESCRIPTION =
  "Its finished runs, oldest first (by when they finished), a page at a time; the last page ends with the run in progress (`running`), " +
  "one more than `limit` then. Messages still waiting their turn are listed by `GET /api/threads/{id}/queue`.";
