import type { ErrorCode, LeaseFence, LeaseStore } from "@axiom-lattice/protocols";
import { setTimeout as sleep } from "node:timers/promises";
import { type AcquireLeaseOptions, acquireLease } from "./heldLease";
import { uniqueHolder } from "./holder";
import type { LeaseLostError } from "./leaseHeartbeat";
import { WITH_LEASE_ACQUIRE_TIMEOUT_MS, WITH_LEASE_RETRY_DELAY_MS, WITH_LEASE_TTL_MS } from "../defaults";

/** Acquisition gave up after `acquireTimeoutMs` because another holder kept the key. */
export class LeaseAcquireTimeoutError extends Error {
  readonly code = "LEASE_ACQUIRE_TIMEOUT" satisfies ErrorCode;

  constructor(
    readonly key: string,
    readonly waitedMs: number,
  ) {
    super(`Could not acquire lease "${key}" within ${waitedMs} ms`);
    this.name = "LeaseAcquireTimeoutError";
  }
}

export interface WithLeaseOptions extends AcquireLeaseOptions {
  ttlMs?: number;
  acquireTimeoutMs?: number;
  retryDelayMs?: number;
}

/** What the guarded function receives. */
export interface LeaseContext {
  /** Aborted when the lease is lost; stop writing. */
  signal: AbortSignal;
  /** Fencing token of this tenure: pass it to writes that must be refused once a newer holder exists. */
  token: string;
  /** This tenure, for the writes a store must refuse once the key has a newer one. */
  fence: LeaseFence;
  /** Ends the tenure at once (aborting `signal`): a store refused a write under its fence. */
  revoke(error: LeaseLostError): void;
  holder: string;
}

/**
 * Runs `fn` while holding `key`, exclusively across every process sharing `store`. Waits at most
 * `acquireTimeoutMs`, renews every `ttlMs / 3`, and always releases.
 */
export async function withLease<T>(
  store: LeaseStore,
  key: string,
  ownerLabel: string,
  fn: (context: LeaseContext) => Promise<T>,
  { ttlMs = WITH_LEASE_TTL_MS, acquireTimeoutMs = WITH_LEASE_ACQUIRE_TIMEOUT_MS, retryDelayMs = WITH_LEASE_RETRY_DELAY_MS, logger }: WithLeaseOptions,
): Promise<T> {
  const holder = uniqueHolder(ownerLabel);
  const startedAt = Date.now();
  let lease = await acquireLease(store, key, holder, ttlMs, { logger });
  while (!lease) {
    const waited = Date.now() - startedAt;
    if (waited + retryDelayMs > acquireTimeoutMs) throw new LeaseAcquireTimeoutError(key, waited);
    await sleep(retryDelayMs);
    lease = await acquireLease(store, key, holder, ttlMs, { logger });
  }

  try {
    return await fn({ signal: lease.signal, token: lease.token, fence: lease.fence, revoke: lease.revoke, holder });
  } finally {
    await lease.release();
  }
}
