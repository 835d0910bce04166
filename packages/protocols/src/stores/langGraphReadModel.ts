import type { PendingMessage, ThreadQueueRef } from "./messageQueue";
import type { Thread } from "./thread";

/** Which of a tenant's threads to search (the LangGraph API's search), in which order, which slice. */
export interface ThreadFilter {
  assistantId?: string;
  /** Only threads whose metadata contains this object (as PostgreSQL's jsonb `@>` judges). */
  metadata?: Record<string, unknown>;
  /** Only threads with one of these ids. */
  ids?: string[];
  /** Default `createdAt`; ties are broken by id. */
  sortBy?: "createdAt" | "updatedAt" | "id";
  /** Default `desc`. */
  sortOrder?: "asc" | "desc";
  /** 1 to 1,000; default 100. */
  limit?: number;
  offset?: number;
}

/**
 * The reads only the LangGraph API (and A2A, which shows threads and runs the same way) makes of the
 * thread and queue stores' data: offset paging, metadata containment and sort keys over threads, a
 * thread's latest runs. Kept out of `ThreadStore` and `MessageQueueStore`, whose own lists
 * page by cursor, so a store serves every caller and this model one API's shapes.
 *
 * Bad arguments are refused with an error whose `code` is `INVALID_STORE_ARGUMENT`.
 */
export interface LangGraphReadModel {
  /**
   * The LangGraph API's thread search: the tenant's threads matching `filter`, newest first unless it
   * says otherwise, a slice by `limit` and `offset` (that API's paging).
   */
  searchThreads(tenantId: string, filter?: ThreadFilter): Promise<Thread[]>;
  /**
   * The thread's latest `limit` (default 100) completed messages, oldest first: for callers that want
   * the last runs only (the LangGraph API's thread status and run search).
   */
  latestRuns(thread: ThreadQueueRef, options?: { limit?: number }): Promise<PendingMessage[]>;
}
