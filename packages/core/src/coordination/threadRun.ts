import type { LeaseStore, QueueScope } from "@axiom-lattice/protocols";
import { acquireLease, type HeldLease, type ReplicaLeaseOptions } from "./heldLease";
import { holderLabel, uniqueHolder } from "./holder";
import { LEASE_LIST_MAX, THREAD_RUN_TTL_MS } from "../defaults";

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


const THREAD_RUN_PREFIX = "thread-run:";

export function threadRunLeaseKey({ tenantId, assistantId, threadId }: ThreadRunScope): string {
  return `${THREAD_RUN_PREFIX}${[tenantId, assistantId, threadId].map(encodeURIComponent).join(":")}`;
}


/** Takes ownership of a thread's run without waiting; `null` when another holder owns it. */
export async function tryAcquireThreadRun(
  scope: ThreadRunScope,
  { store, ttlMs = THREAD_RUN_TTL_MS, logger, replicaId }: { store: LeaseStore; ttlMs?: number } & ReplicaLeaseOptions,
): Promise<ThreadRunHandle | null> {
  return acquireLease(store, threadRunLeaseKey(scope), uniqueHolder(replicaId), ttlMs, { logger });
}

/**
 * The lease keys ({@link threadRunLeaseKey}) of every thread with a run owner now, in one read; `null`
 * when there are more than one list holds, so the caller asks per thread instead.
 */
export async function ownedThreadRunKeys({ store }: { store: LeaseStore }): Promise<Set<string> | null> {
  const leases = await store.list({ prefix: THREAD_RUN_PREFIX, limit: LEASE_LIST_MAX });
  return leases.length < LEASE_LIST_MAX ? new Set(leases.map((lease) => lease.key)) : null;
}

/** The replica id of the thread's current run owner, or `null` when nobody runs it. */
export async function getThreadRunOwner(scope: ThreadRunScope, { store }: { store: LeaseStore }): Promise<string | null> {
  const record = await store.get(threadRunLeaseKey(scope));
  return record ? holderLabel(record.holder) : null;
}
