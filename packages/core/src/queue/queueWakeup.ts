import type { ThreadRunScope } from "../coordination/threadRun";

/**
 * What a wake-up tells of a thread: it has a new pending message, or (`abortRequested`) an abort of
 * its run was recorded on the run's message, for the replica holding the run to apply.
 * `waitsAtSender`: the sender's own processor waits for a run slot to run the thread, so a peer
 * without a free slot may leave it there rather than queue it a second time.
 */
export interface QueueNotice extends ThreadRunScope {
  abortRequested?: true;
  waitsAtSender?: true;
}

export type QueueWakeupListener = (notice: QueueNotice) => void;

/**
 * Notices about threads' queues: sent on enqueue, so a replica that owns nothing starts processing it
 * at once instead of on its next sweep, and on an abort request, so the run's holder stops it at once
 * instead of at its next claim renewal. Delivery is best effort (the sweep and the renewal are the
 * guarantees); a sender may also receive its own notification.
 */
export interface QueueWakeup {
  notify(notice: QueueNotice): Promise<void>;
  /** Returns the function that unsubscribes. */
  subscribe(listener: QueueWakeupListener): () => void;
}

/** Keeps only well-formed notices (they may come from other replicas, or other versions). */
export function asQueueNotice(value: unknown): QueueNotice | null {
  if (typeof value !== "object" || value === null) return null;
  const { tenantId, assistantId, threadId, abortRequested, waitsAtSender } = value as Record<string, unknown>;
  if (typeof tenantId !== "string" || typeof assistantId !== "string" || typeof threadId !== "string") return null;
  return {
    tenantId,
    assistantId,
    threadId,
    ...(abortRequested === true ? { abortRequested } : {}),
    ...(waitsAtSender === true ? { waitsAtSender } : {}),
  };
}
