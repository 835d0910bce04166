import type { LeaseFence, LeaseStore } from "@axiom-lattice/protocols";
import type { Logger } from "../logging/logger";
import { type LeaseLostError, startLeaseHeartbeat } from "./leaseHeartbeat";

/** A lease this process won, kept alive by its heartbeat until released. */
export interface HeldLease {
  readonly key: string;
  readonly holder: string;
  /** Fencing token of this tenure: pass it to writes that must be refused once a newer holder exists. */
  readonly token: string;
  /** This tenure, for the writes a store must refuse once the key has a newer one. */
  readonly fence: LeaseFence;
  /** Aborted (with a `LeaseLostError`) once the lease can no longer be confirmed: stop the guarded work. */
  readonly signal: AbortSignal;
  /**
   * Ends this tenure at once, for a loss learnt from a store (a write its fence refused): the
   * heartbeat stops and `signal` aborts with `error`, as on a refused renewal.
   */
  revoke(error: LeaseLostError): void;
  /**
   * Stops the heartbeat and removes the lease if this holder still owns it. Idempotent. A failed release
   * is logged, not thrown: the work is over either way, and the lease lapses at its ttl.
   */
  release(): Promise<void>;
  /**
   * Ends this tenure through `release`, a store call that releases the lease as the store's `release`
   * does and may do more in the same round trip (a queue's last look at the thread): the heartbeat
   * stops first. Rejects as `release` does (the lease then lapses at its ttl); `release()` after it
   * does nothing more.
   */
  releaseThrough<T>(release: () => Promise<T>): Promise<T>;
  /** Stops the heartbeat but leaves the lease in the store until its ttl runs out. */
  stopHeartbeat(): void;
}

export interface AcquireLeaseOptions {
  /** Where lease loss and failed renewals or releases are logged. */
  logger: Logger;
}

/** Options of the helpers that name their own holder (`<replicaId>#<random id>`). */
export interface ReplicaLeaseOptions extends AcquireLeaseOptions {
  /** The replica taking the lease, which `getThreadRunOwner` and logs report; default `getReplicaId()`. */
  replicaId?: string;
}

/**
 * Takes `key` for `holder` without waiting and starts its heartbeat; `null` when another holder owns it.
 * `holder` should be unique to this acquisition (see `uniqueHolder`): a store hands a holder's own live
 * lease back to it, so two acquisitions sharing a holder would not exclude each other.
 */
export async function acquireLease(
  store: LeaseStore,
  key: string,
  holder: string,
  ttlMs: number,
  { logger }: AcquireLeaseOptions,
): Promise<HeldLease | null> {
  // Taken before the request, so the heartbeat's local deadline never outlives the store's expiry.
  const requestedAt = Date.now();
  const record = await store.acquire(key, holder, ttlMs);
  if (!record) return null;

  const heartbeat = startLeaseHeartbeat(store, key, holder, ttlMs, requestedAt, { logger });
  const releaseOnce = async () => {
    heartbeat.stop();
    try {
      await store.release(key, holder);
    } catch (error) {
      logger.warn({ phase: "lease", key, holder, err: error }, "lease release failed; it will expire");
    }
  };
  let released: Promise<void> | undefined;
  const releaseThrough = <T>(release: () => Promise<T>): Promise<T> => {
    heartbeat.stop();
    const result = release();
    released ??= result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  };
  return {
    key,
    holder,
    token: record.token,
    fence: { key, token: record.token },
    signal: heartbeat.signal,
    revoke: heartbeat.revoke,
    release: () => (released ??= releaseOnce()),
    releaseThrough,
    stopHeartbeat: heartbeat.stop,
  };
}
