import type { LeaseStore } from "@axiom-lattice/protocols";
import { getStoreLattice } from "../registry/storeRegistry";
import { holderLabel, uniqueHolder } from "./holder";
import { startLeaseHeartbeat } from "./leaseHeartbeat";
import { releaseLease } from "./leaseRelease";

export interface ThreadRunScope {
  tenantId: string;
  assistantId: string;
  threadId: string;
}

/** Ownership of one thread's run by this process. */
export interface ThreadRunHandle {
  key: string;
  holder: string;
  token: string;
  /** Aborted when ownership is lost. */
  signal: AbortSignal;
  /** Gives ownership up; idempotent, and only ever removes this handle's own lease. */
  release(): Promise<void>;
}

export const THREAD_RUN_TTL_MS = 30_000;

export function threadRunLeaseKey({ tenantId, assistantId, threadId }: ThreadRunScope): string {
  return `thread-run:${[tenantId, assistantId, threadId].map(encodeURIComponent).join(":")}`;
}

const leaseStore = (store?: LeaseStore) => store ?? getStoreLattice("default", "lease");

/** Takes ownership of a thread's run without waiting; `null` when another holder owns it. */
export async function tryAcquireThreadRun(
  scope: ThreadRunScope,
  { store, ttlMs = THREAD_RUN_TTL_MS }: { store?: LeaseStore; ttlMs?: number } = {},
): Promise<ThreadRunHandle | null> {
  const leases = leaseStore(store);
  const key = threadRunLeaseKey(scope);
  const holder = uniqueHolder();
  const requestedAt = Date.now();
  const record = await leases.acquire(key, holder, ttlMs);
  if (!record) return null;
  const heartbeat = startLeaseHeartbeat(leases, key, holder, ttlMs, requestedAt);
  let released: Promise<void> | undefined;
  return {
    key,
    holder,
    token: record.token,
    signal: heartbeat.signal,
    release() {
      released ??= (async () => {
        heartbeat.stop();
        await releaseLease(leases, key, holder);
      })();
      return released;
    },
  };
}

/** The replica id of the thread's current run owner, or `null` when nobody runs it. */
export async function getThreadRunOwner(scope: ThreadRunScope, { store }: { store?: LeaseStore } = {}): Promise<string | null> {
  const record = await leaseStore(store).get(threadRunLeaseKey(scope));
  return record ? holderLabel(record.holder) : null;
}
