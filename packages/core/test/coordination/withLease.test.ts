import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { InMemoryLeaseStore, LeaseAcquireTimeoutError, LeaseLostError, withLease, type Logger } from "../../src";
import { FailingReleaseStore, type LogEntry, recordingLogger, storeWithMovableClock } from "./support";

let logs: LogEntry[];
let logger: Logger;
beforeEach(() => {
  ({ logger, entries: logs } = recordingLogger());
});
afterEach(() => {
  vi.useRealTimers();
});

/** Resolves with the abort reason once `signal` aborts. */
async function lossOf(signal: AbortSignal): Promise<unknown> {
  if (!signal.aborted) await once(signal, "abort");
  return signal.reason;
}

describe("withLease", () => {
  it("excludes a second invocation in the same process, even under the same owner label", async () => {
    const store = new InMemoryLeaseStore();
    const events: string[] = [];
    let inside = 0;
    let mostInside = 0;
    const critical = (name: string) =>
      withLease(
        store,
        "shared",
        "same-label",
        async () => {
          inside += 1;
          mostInside = Math.max(mostInside, inside);
          events.push(`${name}:enter`);
          await sleep(30);
          events.push(`${name}:exit`);
          inside -= 1;
          return name;
        },
        { logger, retryDelayMs: 5, acquireTimeoutMs: 5_000 },
      );

    expect(await Promise.all([critical("a"), critical("b")])).toEqual(["a", "b"]);
    expect(mostInside).toBe(1);
    // Each section runs whole before the other one enters.
    const [first, second] = [events[0], events[2]].map((event) => event.split(":")[0]);
    expect(events).toEqual([`${first}:enter`, `${first}:exit`, `${second}:enter`, `${second}:exit`]);
    expect(new Set([first, second])).toEqual(new Set(["a", "b"]));
  });

  it("waits for a held key and runs once it is released within the timeout", async () => {
    const store = new InMemoryLeaseStore();
    await store.acquire("busy", "other#1", 60_000);
    setTimeout(() => void store.release("busy", "other#1"), 50);
    expect(await withLease(store, "busy", "me", async () => "ran", { logger, retryDelayMs: 10, acquireTimeoutMs: 5_000 })).toBe("ran");
  });

  it("gives up with a typed LeaseAcquireTimeoutError naming the key when the key stays held", async () => {
    const store = new InMemoryLeaseStore();
    await store.acquire("busy", "other#1", 60_000);
    const fn = vi.fn(async () => "never");

    const error = await withLease(store, "busy", "me", fn, { logger, acquireTimeoutMs: 150, retryDelayMs: 20 }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LeaseAcquireTimeoutError);
    expect(error).toMatchObject({ key: "busy", code: "LEASE_ACQUIRE_TIMEOUT" });
    expect(fn).not.toHaveBeenCalled();
    expect((await store.get("busy"))?.holder).toBe("other#1");
  });

  it("keeps the lease alive well past its ttl while fn runs, then releases it", async () => {
    vi.useFakeTimers();
    const store = new InMemoryLeaseStore(); // built after faking, so it reads the fake clock
    const running = withLease(
      store,
      "long",
      "me",
      async ({ signal, holder }) => {
        await new Promise((resolve) => setTimeout(resolve, 10_000)); // ten ttls
        return { aborted: signal.aborted, holder, live: await store.get("long") };
      },
      { logger, ttlMs: 1_000 },
    );
    await vi.advanceTimersByTimeAsync(10_000);
    const seen = await running;

    expect(seen.aborted).toBe(false);
    expect(seen.live?.holder).toBe(seen.holder);
    expect(await store.get("long")).toBeNull();
  });

  it("aborts fn's signal when another holder takes the lease after a forced expiry", async () => {
    const { store, advance } = storeWithMovableClock();
    const reason = await withLease(
      store,
      "stolen",
      "me",
      async ({ signal }) => {
        advance(1_000); // the store now sees the lease as expired
        expect(await store.tryAcquire("stolen", "intruder#1", 60_000)).toBe(true);
        return lossOf(signal);
      },
      { logger, ttlMs: 300 },
    );

    expect(reason).toBeInstanceOf(LeaseLostError);
    expect(reason).toMatchObject({ key: "stolen", code: "LEASE_LOST" });
    expect(logs.some((entry) => entry.level === "error" && entry.msg?.startsWith("lease lost"))).toBe(true);
    // The release in finally is holder-scoped: the new holder keeps its lease.
    expect((await store.get("stolen"))?.holder).toBe("intruder#1");
  });

  it("aborts fn's signal when the store refuses a renewal", async () => {
    class RefusingRenewals extends InMemoryLeaseStore {
      override async renew(): Promise<boolean> {
        return false;
      }
    }
    const reason = await withLease(new RefusingRenewals(), "refused", "me", async ({ signal }) => lossOf(signal), { logger, ttlMs: 300 });
    expect(reason).toBeInstanceOf(LeaseLostError);
    expect(String((reason as Error).message)).toContain("renewal refused");
  });

  it.each([
    ["fail", () => Promise.reject(new Error("connection refused"))],
    ["hang", () => new Promise<boolean>(() => undefined)],
  ])("aborts fn's signal at the lease's expiry, not before, when renewals %s", async (_how, renew) => {
    vi.useFakeTimers();
    class UnreachableOnRenew extends InMemoryLeaseStore {
      override renew(): Promise<boolean> {
        return renew();
      }
    }
    const store = new UnreachableOnRenew();
    let signal: AbortSignal | undefined;
    const running = withLease(
      store,
      "unreachable",
      "me",
      async (context) => {
        signal = context.signal;
        return lossOf(context.signal);
      },
      { logger, ttlMs: 900 },
    );
    await vi.advanceTimersByTimeAsync(899);
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(signal?.aborted).toBe(true);
    expect(await running).toBeInstanceOf(LeaseLostError);
    expect(await store.get("unreachable")).toBeNull();
  });

  it("releases in finally when fn throws, and rethrows fn's error", async () => {
    const store = new InMemoryLeaseStore();
    await expect(
      withLease(store, "throws", "me", async () => {
        throw new Error("boom");
      }, { logger }),
    ).rejects.toThrow("boom");
    expect(await store.get("throws")).toBeNull();
    expect(await store.tryAcquire("throws", "next#1", 1_000)).toBe(true);
  });

  it("returns fn's result when the release itself fails, and logs the failure", async () => {
    expect(await withLease(new FailingReleaseStore(), "k", "me", async () => 42, { logger })).toBe(42);
    expect(logs.some((entry) => entry.level === "warn" && entry.msg?.includes("release failed"))).toBe(true);
  });

  it("logs to the logger it is given, not to the one other calls were given", async () => {
    const { logger, entries } = recordingLogger();
    await withLease(new FailingReleaseStore(), "k", "me", async () => undefined, { logger });
    expect(entries.map((entry) => entry.msg)).toEqual([expect.stringContaining("release failed")]);
    expect(logs).toEqual([]);
  });

  it("passes fn the token and holder of the store's record, a new token per tenure", async () => {
    const store = new InMemoryLeaseStore();
    const tokens: bigint[] = [];
    for (let i = 0; i < 2; i += 1) {
      await withLease(store, "fenced", "label", async ({ token, holder }) => {
        expect(holder).toMatch(/^label#/);
        expect(await store.get("fenced")).toMatchObject({ token, holder });
        tokens.push(BigInt(token));
      }, { logger });
    }
    expect(tokens[1]).toBeGreaterThan(tokens[0]);
  });
});
