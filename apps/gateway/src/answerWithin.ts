import { setTimeout as delay } from "node:timers/promises";

/**
 * `work`, failed with "no answer within `ms` ms" should it take longer: for answers that must come
 * promptly (a readiness probe, a scrape) from a dependency that may never answer (a partitioned
 * database). The work itself goes on; its own timeouts end it.
 */
export async function answerWithin<T>(ms: number, work: Promise<T>): Promise<T> {
  const abandoned = new AbortController();
  const timeout = delay(ms, undefined, { signal: abandoned.signal }).then(() => {
    throw new Error(`no answer within ${ms} ms`);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    abandoned.abort();
    timeout.catch(() => undefined);
  }
}
