import type { Page, PageRequest } from "../page";

/**
 * The assistant id of a thread that belongs to no assistant: the LangGraph API's threads, where each
 * run names its own assistant. One id for all of them keeps one queue scope, run lease and run history
 * per thread whichever assistants run on it.
 */
export const ANY_ASSISTANT = "*";

/** A conversation with one assistant (or {@link ANY_ASSISTANT}); its state lives in the checkpointer. */
export interface Thread {
  id: string;
  tenantId: string;
  assistantId: string;
  metadata: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
  /**
   * LangGraph's thread TTL: the thread is deleted this many minutes after it was last used (created,
   * updated, written to, run). Absent: it is kept until deleted.
   */
  ttlMinutes?: number;
  /**
   * LangGraph's thread config: what its runs' configs merged to (the assistant's, then each run's over
   * it). A deployed graph built from its config (a factory) reads the thread's state built from it.
   * Absent until a run sets it.
   */
  config?: Record<string, unknown>;
}

/** What {@link ThreadStore.updateThread} sets besides metadata. */
export interface ThreadUpdateOptions {
  /** Minutes above 0: see {@link Thread.ttlMinutes}. */
  ttlMinutes?: number;
  /** Replaces {@link Thread.config}. */
  config?: Record<string, unknown>;
}

export interface CreateThreadRequest {
  id?: string;
  assistantId: string;
  metadata?: Record<string, unknown>;
  /** Minutes above 0: see {@link Thread.ttlMinutes}. */
  ttlMinutes?: number;
}

/** Which of a tenant's threads a {@link ThreadStore.listThreads} page holds. */
export interface ThreadListFilter {
  assistantId?: string;
}

export interface ThreadStore {
  createThread(tenantId: string, request: CreateThreadRequest): Promise<Thread>;
  getThread(tenantId: string, threadId: string): Promise<Thread | null>;
  /**
   * A page of the tenant's threads (of one assistant, with `filter.assistantId`), newest first: by
   * creation time, then id (by code unit), both descending. Throws `PageCursorError` on a cursor no
   * page of this list returned.
   */
  listThreads(tenantId: string, page: PageRequest, filter?: ThreadListFilter): Promise<Page<Thread>>;
  /**
   * Merges `metadata` (top-level keys) and, with `ttlMinutes`, sets the thread's TTL, with `config` its
   * config; either way the thread was used: its TTL restarts.
   */
  updateThread(tenantId: string, threadId: string, metadata: Record<string, unknown>, options?: ThreadUpdateOptions): Promise<Thread | null>;
  /** The thread was used (a run, a state write): its TTL restarts. `false` when it has none, or is missing. */
  touchThread(tenantId: string, threadId: string): Promise<boolean>;
  deleteThread(tenantId: string, threadId: string): Promise<boolean>;
  /**
   * Up to `limit` threads of every tenant whose TTL ran out, the longest expired first, each claimed
   * for `claimMs`: no call, from this store or any other over the same threads, hands it out again
   * before then (unless it is used and expires again), so concurrent sweeps never take one thread twice.
   * A thread claimed and not deleted (it was in use) comes back once the claim lapses.
   */
  claimExpiredThreads(limit: number, claimMs: number): Promise<Thread[]>;
}
