import type { Thread } from "./thread";

/** What a run request names, as one read found it. */
export interface RunTarget {
  /** Whether the tenant has the assistant. */
  assistantFound: boolean;
  /** The tenant's thread, or `null`. */
  thread: Thread | null;
}

/**
 * The read every `/api/runs` request makes before it queues anything: its assistant and its thread,
 * together. On PostgreSQL that is one round trip instead of one per store, on the path of every run.
 *
 * Bad arguments are refused with an error whose `code` is `INVALID_STORE_ARGUMENT`.
 */
export interface RunTargetReadModel {
  /** Whether the tenant's assistant `assistantId` exists, and its thread `threadId` as the thread store reads it. */
  findRunTarget(tenantId: string, assistantId: string, threadId: string): Promise<RunTarget>;
}
