import type { LeaseStore } from "@axiom-lattice/protocols";
import { acquireLease, type ReplicaLeaseOptions } from "./heldLease";
import { uniqueHolder } from "./holder";
import { leaderLeaseKey } from "./leaderLoop";
import { LEADER_LEASE_TTL_MS } from "../defaults";

export interface RunAsLeaderOptions extends ReplicaLeaseOptions {
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
  { hold = false, ttlMs = LEADER_LEASE_TTL_MS, logger, replicaId }: RunAsLeaderOptions,
): Promise<LeaderOutcome<T>> {
  const lease = await acquireLease(store, leaderLeaseKey(name), uniqueHolder(replicaId), ttlMs, { logger });
  if (!lease) return { ran: false };
  try {
    return { ran: true, result: await fn() };
  } finally {
    if (hold) lease.stopHeartbeat();
    else await lease.release();
  }
}
