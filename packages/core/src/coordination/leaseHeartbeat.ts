import type { LeaseStore } from "@axiom-lattice/protocols";
import { getLogger } from "../logging/logger";

/** Why a lease-guarded piece of work was told to stop. */
export class LeaseLostError extends Error {
  readonly code = "LEASE_LOST";

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
}

/**
 * Renews `key` every `ttlMs / 3` while the work runs. A renewal refused by the store aborts at once;
 * a renewal that fails (store unreachable) is retried until the lease would have expired, then aborts.
 */
export function startLeaseHeartbeat(store: LeaseStore, key: string, holder: string, ttlMs: number): LeaseHeartbeat {
  const controller = new AbortController();
  const intervalMs = Math.max(1, Math.floor(ttlMs / 3));
  let validUntil = Date.now() + ttlMs;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const lose = (reason: string, err?: unknown) => {
    if (controller.signal.aborted) return;
    getLogger().error({ phase: "lease", key, holder, err }, `lease lost: ${reason}`);
    controller.abort(new LeaseLostError(key, reason));
  };

  const beat = async () => {
    const startedAt = Date.now();
    try {
      if (await store.renew(key, holder, ttlMs)) validUntil = startedAt + ttlMs;
      else return lose("renewal refused (expired or taken over)");
    } catch (error) {
      if (Date.now() + intervalMs >= validUntil) return lose("renewal failed until expiry", error);
      getLogger().warn({ phase: "lease", key, holder, err: error }, "lease renewal failed; retrying");
    }
    if (!stopped) timer = setTimeout(beat, intervalMs);
  };

  timer = setTimeout(beat, intervalMs);
  return {
    signal: controller.signal,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
