import type { LeaseStore, QueueScope } from "@axiom-lattice/protocols";
import { acquireLease, type HeldLease, type ReplicaLeaseOptions } from "./heldLease";
import { holderLabel, uniqueHolder } from "./holder";
import { THREAD_RUN_TTL_MS } from "../defaults";

export interface ThreadRunScope {
  tenantId: string;
  assistantId: string;
  threadId: string;
}

/**
 * Where a thread's runs are queued, without the thread: its tenant and assistant, as the queue's
 * `getMessage` and an add's `scope` take them (its thread methods take the run scope itself).
 */
export function queueScopeOf({ tenantId, assistantId }: Pick<ThreadRunScope, "tenantId" | "assistantId">): QueueScope {
  return { tenantId, assistantId };
}

/**
 * Ownership of one thread's run by this process: `signal` aborts when ownership is lost; `release()`
 * is idempotent and only ever removes this handle's own lease. A run is always given up, never left
 * to lapse, so the handle has no `stopHeartbeat`.
 */
export type ThreadRunHandle = Omit<HeldLease, "stopHeartbeat">;


export function threadRunLeaseKey({ tenantId, assistantId, threadId }: ThreadRunScope): string {
  return `thread-run:${[tenantId, assistantId, threadId].map(encodeURIComponent).join(":")}`;
}


/** Takes ownership of a thread's run without waiting; `null` when another holder owns it. */
export async function tryAcquireThreadRun(
  scope: ThreadRunScope,
  { store, ttlMs = THREAD_RUN_TTL_MS, logger, replicaId }: { store: LeaseStore; ttlMs?: number } & ReplicaLeaseOptions,
): Promise<ThreadRunHandle | null> {
  return acquireLease(store, threadRunLeaseKey(scope), uniqueHolder(replicaId), ttlMs, { logger });
}

/** The replica id of the thread's current run owner, or `null` when nobody runs it. */
export async function getThreadRunOwner(scope: ThreadRunScope, { store }: { store: LeaseStore }): Promise<string | null> {
  const record = await store.get(threadRunLeaseKey(scope));
  return record ? holderLabel(record.holder) : null;
}
