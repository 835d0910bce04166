import type { LeaseStore } from "@axiom-lattice/protocols";
import { uniqueHolder } from "./holder";
import { startLeaseHeartbeat } from "./leaseHeartbeat";
import { releaseLease } from "./leaseRelease";

export interface RunAsLeaderOptions {
  /** Keep the lease until it expires after `fn` ends, so replicas starting within `ttlMs` skip the work. */
  hold?: boolean;
  ttlMs?: number;
}

export type LeaderOutcome<T> = { ran: true; result: T } | { ran: false };

/**
 * Runs `fn` on the one replica that wins `leader:<name>`; every other caller returns `{ ran: false }`
 * at once, without waiting.
 */
export async function runAsLeader<T>(
  store: LeaseStore,
  name: string,
  fn: () => Promise<T>,
  { hold = false, ttlMs = 300_000 }: RunAsLeaderOptions = {},
): Promise<LeaderOutcome<T>> {
  const key = `leader:${name}`;
  const holder = uniqueHolder();
  const requestedAt = Date.now();
  if (!(await store.tryAcquire(key, holder, ttlMs))) return { ran: false };
  const heartbeat = startLeaseHeartbeat(store, key, holder, ttlMs, requestedAt);
  try {
    return { ran: true, result: await fn() };
  } finally {
    heartbeat.stop();
    if (!hold) await releaseLease(store, key, holder);
  }
}
