import type { ErrorCode, LeaseStore } from "@axiom-lattice/protocols";
import type { Logger } from "../logging/logger";

/** Why a lease-guarded piece of work was told to stop. */
export class LeaseLostError extends Error {
  readonly code = "LEASE_LOST" satisfies ErrorCode;

  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`Lease "${key}" was lost: ${reason}`);
    this.name = "LeaseLostError";
  }
}

export interface LeaseHeartbeat {
  /** Aborted (with a {@link LeaseLostError}) once the lease can no longer be confirmed. */
  readonly signal: AbortSignal;
  stop(): void;
  /** Ends the tenure at once, for a loss learnt elsewhere (a write refused by its fence): stops and aborts with `error`. */
  revoke(error: LeaseLostError): void;
}

/**
 * Renews `key` every `ttlMs / 3` while the work runs. A renewal refused by the store aborts at once.
 * A renewal that fails (store unreachable) is retried; when no renewal has been confirmed by the time
 * the lease would expire, the signal aborts, even if a renewal is still hanging.
 *
 * `requestedAt` is the local time the acquiring request was sent: the local deadline is counted from
 * before each confirming request, so it never outlives the store's own expiry. Losses and failed
 * renewals are logged to `logger`.
 */
export function startLeaseHeartbeat(
  store: LeaseStore,
  key: string,
  holder: string,
  ttlMs: number,
  requestedAt: number = Date.now(),
  { logger }: { logger: Logger },
): LeaseHeartbeat {
  const controller = new AbortController();
  const intervalMs = Math.max(1, Math.floor(ttlMs / 3));
  let renewTimer: NodeJS.Timeout | undefined;
  let expiryTimer: NodeJS.Timeout | undefined;
  let stopped = false;

  const stop = () => {
    stopped = true;
    clearTimeout(renewTimer);
    clearTimeout(expiryTimer);
  };

  const revoke = (error: LeaseLostError) => {
    // A renewal answered after stop() concerns work that has already ended: nothing to abort.
    if (stopped) return;
    stop();
    // Operators (and the chaos scenario) find losses by this message's start.
    logger.error({ phase: "lease", key, holder }, `lease lost: ${error.message}`);
    controller.abort(error);
  };
  const lose = (reason: string) => revoke(new LeaseLostError(key, reason));

  const confirmed = (sentAt: number) => {
    clearTimeout(expiryTimer);
    expiryTimer = setTimeout(() => lose("not renewed before expiry"), sentAt + ttlMs - Date.now());
  };

  const beat = async () => {
    const sentAt = Date.now();
    try {
      if (!(await store.renew(key, holder, ttlMs))) return lose("renewal refused (expired or taken over)");
      if (!stopped) confirmed(sentAt);
    } catch (error) {
      if (!stopped) logger.warn({ phase: "lease", key, holder, err: error }, "lease renewal failed; retrying");
    }
    if (!stopped) renewTimer = setTimeout(beat, intervalMs);
  };

  confirmed(requestedAt);
  renewTimer = setTimeout(beat, intervalMs);
  return { signal: controller.signal, stop, revoke };
}
