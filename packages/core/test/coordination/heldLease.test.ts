import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { acquireLease, InMemoryLeaseStore, LeaseLostError, type Logger } from "../../src";
import { type LogEntry, recordingLogger, storeWithMovableClock } from "./support";

const never = () => new Promise<boolean>(() => undefined);
/** Answers `value` after `ms` on the (possibly fake) clock. */
const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

/**
 * An in-memory store that counts renewals and releases, and answers them as a test scripts: each
 * renewal takes the next scripted answer (the real one once the script runs out).
 */
class ScriptedStore extends InMemoryLeaseStore {
  renewals = 0;
  releases = 0;
  renewScript: (() => Promise<boolean>)[] = [];
  releaseAnswer?: () => Promise<boolean>;
  acquireDelayMs = 0;

  override async acquire(key: string, holder: string, ttlMs: number) {
    if (this.acquireDelayMs > 0) await after(this.acquireDelayMs, undefined);
    return super.acquire(key, holder, ttlMs);
  }

  override renew(key: string, holder: string, ttlMs: number): Promise<boolean> {
    this.renewals += 1;
    return this.renewScript.shift()?.() ?? super.renew(key, holder, ttlMs);
  }

  override release(key: string, holder: string): Promise<boolean> {
    this.releases += 1;
    return this.releaseAnswer?.() ?? super.release(key, holder);
  }
}

let globalLogs: LogEntry[];
let logger: Logger;
beforeEach(() => {
  ({ logger, entries: globalLogs } = recordingLogger());
});
afterEach(() => {
  vi.useRealTimers();
});

describe("acquireLease", () => {
  it("takes a free key with the store's token, and answers null while another holder owns it", async () => {
    const store = new InMemoryLeaseStore();
    const lease = await acquireLease(store, "k", "a#1", 60_000, { logger });
    expect(lease).toMatchObject({ key: "k", holder: "a#1" });
    expect(await store.get("k")).toMatchObject({ holder: "a#1", token: lease!.token });

    expect(await acquireLease(store, "k", "b#1", 60_000, { logger })).toBeNull();
    expect((await store.get("k"))?.holder).toBe("a#1");
    await lease!.release();
  });

  it("renews every ttl / 3, keeping the lease alive well past its ttl", async () => {
    vi.useFakeTimers();
    const store = new ScriptedStore(); // built after faking, so it reads the fake clock
    const lease = await acquireLease(store, "k", "a#1", 900, { logger });

    await vi.advanceTimersByTimeAsync(9_000);
    expect(store.renewals).toBe(30);
    expect(lease!.signal.aborted).toBe(false);
    expect((await store.get("k"))?.holder).toBe("a#1");
    await lease!.release();
  });

  it("aborts its signal with a LeaseLostError as soon as the store refuses a renewal, logging to the given logger", async () => {
    vi.useFakeTimers();
    const store = new ScriptedStore();
    store.renewScript = [async () => false];
    const { logger, entries } = recordingLogger();
    const lease = await acquireLease(store, "k", "a#1", 900, { logger });

    await vi.advanceTimersByTimeAsync(299);
    expect(lease!.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(lease!.signal.aborted).toBe(true);
    expect(lease!.signal.reason).toBeInstanceOf(LeaseLostError);
    expect(lease!.signal.reason).toMatchObject({ key: "k", message: expect.stringContaining("renewal refused") });
    expect(entries).toEqual([expect.objectContaining({ level: "error", msg: expect.stringMatching(/^lease lost/) })]);
    expect(globalLogs).toEqual([]);
    await lease!.release();
  });

  it.each([
    ["fail", () => Promise.reject(new Error("connection refused"))],
    ["hang", never],
  ])("aborts at ttl after the acquiring request was sent, not later, when renewals %s", async (_how, renew) => {
    vi.useFakeTimers();
    const store = new ScriptedStore();
    store.acquireDelayMs = 100; // the store grants the lease 100 ms after the request left
    store.renewScript = Array.from({ length: 10 }, () => renew);
    const acquiring = acquireLease(store, "k", "a#1", 900, { logger });
    await vi.advanceTimersByTimeAsync(100);
    const lease = await acquiring;

    await vi.advanceTimersByTimeAsync(799); // 899 ms after the request
    expect(lease!.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(lease!.signal.reason).toBeInstanceOf(LeaseLostError);
    expect(lease!.signal.reason).toMatchObject({ message: expect.stringContaining("not renewed before expiry") });
    await lease!.release();
  });

  it("counts the deadline from when the last confirmed renewal was sent, not when it was answered", async () => {
    vi.useFakeTimers();
    const store = new ScriptedStore();
    store.renewScript = [() => after(200, true), never]; // sent at 300 ms and confirmed at 500 ms, then stuck
    const lease = await acquireLease(store, "k", "a#1", 900, { logger });

    await vi.advanceTimersByTimeAsync(1_199);
    expect(lease!.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(lease!.signal.aborted).toBe(true);
    await lease!.release();
  });

  it("releases once however often release() is called, and frees the key", async () => {
    const store = new ScriptedStore();
    const lease = await acquireLease(store, "k", "a#1", 60_000, { logger });
    await Promise.all([lease!.release(), lease!.release()]);
    await lease!.release();
    expect(store.releases).toBe(1);
    expect(await store.get("k")).toBeNull();
  });

  it("never removes the lease of a holder that took the key over after it expired", async () => {
    const { store, advance } = storeWithMovableClock();
    const stale = await acquireLease(store, "k", "a#1", 300, { logger });
    advance(1_000); // the stale lease expires under its holder
    const current = await acquireLease(store, "k", "b#1", 60_000, { logger });
    expect(current).not.toBeNull();

    await stale!.release();
    expect((await store.get("k"))?.holder).toBe("b#1");
    await current!.release();
  });

  it("stops the heartbeat at once on release, even while the store's release hangs", async () => {
    vi.useFakeTimers();
    const store = new ScriptedStore();
    store.releaseAnswer = never;
    const lease = await acquireLease(store, "k", "a#1", 900, { logger });

    void lease!.release();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(store.renewals).toBe(0);
    expect(lease!.signal.aborted).toBe(false);
  });

  it("ignores a refusal that answers after release: the work is over, nothing to abort or log", async () => {
    vi.useFakeTimers();
    const store = new ScriptedStore();
    store.renewScript = [() => after(200, false)]; // sent at 300 ms, refused at 500 ms
    const lease = await acquireLease(store, "k", "a#1", 900, { logger });

    await vi.advanceTimersByTimeAsync(400);
    await lease!.release();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(lease!.signal.aborted).toBe(false);
    expect(globalLogs).toEqual([]);
  });

  it("logs a failed release to the given logger instead of throwing it", async () => {
    const store = new ScriptedStore();
    store.releaseAnswer = () => Promise.reject(new Error("connection reset"));
    const { logger, entries } = recordingLogger();
    const lease = await acquireLease(store, "k", "a#1", 60_000, { logger });

    await expect(lease!.release()).resolves.toBeUndefined();
    expect(entries).toEqual([expect.objectContaining({ level: "warn", msg: expect.stringContaining("release failed") })]);
    expect(globalLogs).toEqual([]);
  });

  it("releaseThrough stops the heartbeat, answers what the store's call answers, and release() after it calls the store no more", async () => {
    vi.useFakeTimers();
    const store = new ScriptedStore();
    const lease = (await acquireLease(store, "k", "a#1", 900, { logger }))!;
    const answer = await lease.releaseThrough(async () => {
      await store.release("k", "a#1");
      return ["looked"];
    });
    expect(answer).toEqual(["looked"]);
    await lease.release();
    expect(store.releases).toBe(1);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(store.renewals).toBe(0);
    expect(await store.get("k")).toBeNull();
  });

  it("releaseThrough rejects as the store's call does; the lease is left to lapse", async () => {
    vi.useFakeTimers();
    const store = new ScriptedStore();
    const lease = (await acquireLease(store, "k", "a#1", 900, { logger }))!;
    await expect(lease.releaseThrough(() => Promise.reject(new Error("connection terminated")))).rejects.toThrow("connection terminated");
    await lease.release();
    expect(store.releases).toBe(0);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(store.renewals).toBe(0);
    expect(await store.get("k")).toBeNull();
  });

  it("stopHeartbeat stops renewing and leaves the lease in the store until its ttl runs out", async () => {
    vi.useFakeTimers();
    const store = new ScriptedStore();
    const lease = await acquireLease(store, "k", "a#1", 900, { logger });

    lease!.stopHeartbeat();
    await vi.advanceTimersByTimeAsync(899);
    expect((await store.get("k"))?.holder).toBe("a#1");
    await vi.advanceTimersByTimeAsync(1);
    expect(await store.get("k")).toBeNull();
    expect(store.renewals).toBe(0);
    expect(store.releases).toBe(0);
    expect(lease!.signal.aborted).toBe(false);
  });
});
