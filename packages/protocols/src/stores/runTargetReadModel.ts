import type { Thread } from "./thread";

/** What a run request names, as one read found it. */
export interface RunTarget {
  /** Whether the tenant has the assistant. */
  assistantFound: boolean;
  /** The tenant's thread, or `null`. */
  thread: Thread | null;
}

/**
 * A run request's assistant and thread, read together: one round trip on PostgreSQL instead of one
 * per store. A request that queues lets the queue's add judge them instead (`requireTarget`), which
 * the in-memory queue does through this read.
 *
 * Bad arguments are refused with an error whose `code` is `INVALID_STORE_ARGUMENT`.
 */
export interface RunTargetReadModel {
  /** Whether the tenant's assistant `assistantId` exists, and its thread `threadId` as the thread store reads it. */
  findRunTarget(tenantId: string, assistantId: string, threadId: string): Promise<RunTarget>;
}
