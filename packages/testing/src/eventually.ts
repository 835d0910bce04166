import { setTimeout as sleep } from "node:timers/promises";

export interface EventuallyOptions {
  /** How long to wait before failing (default 10 s): a bound, never a timing claim. */
  timeoutMs?: number;
  /** Pause between checks (default 20 ms). */
  intervalMs?: number;
}

/** Polls `check` until it holds; fails after `timeoutMs`, naming `what` it waited for. */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, intervalMs = 20 }: EventuallyOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
