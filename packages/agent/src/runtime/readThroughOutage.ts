import { isDatabaseUnavailable } from "@axiom-lattice/core";
import { setTimeout as sleep } from "node:timers/promises";
import { STREAM_OUTAGE_PATIENCE_MS } from "../defaults";

export interface ReadThroughOutageOptions {
  /** Wait between attempts. */
  retryMs: number;
  /** Gives up (throws the last error) once this runtime shut down: the client resumes elsewhere. */
  stopped: () => boolean;
  patienceMs?: number;
}

/**
 * `read()`, tried again while the database is unavailable, up to `patienceMs`: a stream follows a
 * run that waits out an outage itself, so its stream waits too rather than ending with what it had.
 * Any other error is thrown at once.
 */
export async function readThroughOutage<T>(read: () => Promise<T>, { retryMs, stopped, patienceMs = STREAM_OUTAGE_PATIENCE_MS }: ReadThroughOutageOptions): Promise<T> {
  const giveUpAt = Date.now() + patienceMs;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || stopped() || Date.now() + retryMs > giveUpAt) throw error;
      await sleep(retryMs);
    }
  }
}
