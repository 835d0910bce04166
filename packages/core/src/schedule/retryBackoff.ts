export interface RetryBackoffOptions {
  /** Delay before the first retry (default 1 s); each further retry doubles it. */
  baseMs?: number;
  /** Upper bound of any retry delay (default 5 min). */
  maxMs?: number;
}

/** Delay before retry number `retryCount + 1`: exponential from `baseMs`, capped at `maxMs`. */
export function retryDelayMs(retryCount: number, { baseMs = 1_000, maxMs = 300_000 }: RetryBackoffOptions = {}): number {
  return Math.min(maxMs, baseMs * 2 ** retryCount);
}
