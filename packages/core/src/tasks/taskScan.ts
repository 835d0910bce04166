import type { TaskItem, TaskScanCursor, TaskStatus, TaskStore } from "@axiom-lattice/protocols";

/** Tasks read per page. */
const SCAN_PAGE_SIZE = 100;

/**
 * Every task of every tenant whose status is one of `statuses`, page by page (for maintenance sweeps).
 * A task changed meanwhile may be seen in its new state or missed; none is seen twice.
 */
export async function* scanEveryTask(store: Pick<TaskStore, "scanTasks">, statuses: TaskStatus[]): AsyncGenerator<TaskItem> {
  let after: TaskScanCursor | undefined;
  for (;;) {
    const page = await store.scanTasks({ statuses, limit: SCAN_PAGE_SIZE, after });
    yield* page;
    if (page.length < SCAN_PAGE_SIZE) return;
    const last = page[page.length - 1];
    after = { tenantId: last.tenantId, id: last.id };
  }
}
