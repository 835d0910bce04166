import type { LangGraphReadModel, PendingMessage, Thread, ThreadFilter, ThreadQueueRef } from "@axiom-lattice/protocols";
import type { InMemoryMessageQueueStore } from "../queue/inMemoryMessageQueueStore";
import { jsonContains } from "../stores/jsonContainment";
import { requireTenantId } from "../stores/storeArguments";
import { type InMemoryThreadStore, compareBy, toThread } from "../threads/inMemoryThreadStore";
import { validateRunsLimit, validateThreadFilter } from "./readModelArguments";

/** {@link LangGraphReadModel} over the data of one process's in-memory thread and queue stores: the same contract as the PostgreSQL one. */
export class InMemoryLangGraphReadModel implements LangGraphReadModel {
  constructor(private readonly stores: { threads: InMemoryThreadStore; queue: InMemoryMessageQueueStore }) {}

  async searchThreads(tenantId: string, filter?: ThreadFilter): Promise<Thread[]> {
    const tenant = requireTenantId(tenantId);
    const { assistantId, metadata, ids, sortBy, sortOrder, limit, offset } = validateThreadFilter(filter);
    const wanted = ids && new Set(ids);
    const direction = sortOrder === "asc" ? 1 : -1;
    // Only the page is copied out.
    return this.stores.threads
      .storedThreads(tenant)
      .filter((stored) => assistantId === undefined || stored.assistantId === assistantId)
      .filter((stored) => !wanted || wanted.has(stored.id))
      .filter((stored) => metadata === undefined || jsonContains(stored.parsedMetadata, metadata))
      .sort((a, b) => direction * compareBy(a, b, sortBy))
      .slice(offset, offset + limit)
      .map(toThread);
  }

  async latestRuns(thread: ThreadQueueRef, options?: { limit?: number }): Promise<PendingMessage[]> {
    return this.stores.queue.latestRunRecords(thread, validateRunsLimit(options));
  }
}
