import { setTimeout as sleep } from "node:timers/promises";

/** Polls `check` until it returns true; fails after `timeoutMs` (a bounded wait, not a timing claim). */
export async function eventually(what: string, check: () => Promise<boolean>, { timeoutMs = 10_000, intervalMs = 20 } = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
