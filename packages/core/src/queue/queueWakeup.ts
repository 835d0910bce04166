import type { ThreadRunScope } from "../coordination/threadRun";

export type QueueWakeupListener = (scope: ThreadRunScope) => void;

/**
 * "A thread has a new pending message": sent on enqueue, so a replica that owns nothing starts
 * processing it at once instead of on its next sweep. Delivery is best effort (the sweep is the
 * guarantee); a sender may also receive its own notification.
 */
export interface QueueWakeup {
  notify(scope: ThreadRunScope): Promise<void>;
  /** Returns the function that unsubscribes. */
  subscribe(listener: QueueWakeupListener): () => void;
}

/** Keeps only well-formed scopes (wake-ups may come from other replicas, or other versions). */
export function asThreadRunScope(value: unknown): ThreadRunScope | null {
  if (typeof value !== "object" || value === null) return null;
  const { tenantId, assistantId, threadId } = value as Record<string, unknown>;
  if (typeof tenantId !== "string" || typeof assistantId !== "string" || typeof threadId !== "string") return null;
  return { tenantId, assistantId, threadId };
}
