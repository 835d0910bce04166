import { afterEach, describe, expect, it, vi } from "vitest";
import { InMemoryOutboxStore, OutboxRetentionJob } from "../../src";
import { captureLogs } from "../coordination/support";

const HOUR = 60 * 60 * 1_000;

/** A store whose prune calls are counted and can be held open or made to fail. */
function pruneSpy() {
  const calls: number[] = [];
  let release: ((removed: number) => void) | undefined;
  const store = {
    hold: false,
    fail: false,
    calls,
    release: (removed: number) => release?.(removed),
    async pruneOlderThan(olderThanMs: number): Promise<number> {
      calls.push(olderThanMs);
      if (store.fail) throw new Error("database unavailable");
      if (store.hold) return new Promise<number>((resolve) => (release = resolve));
      return 3;
    },
  };
  return store;
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("OutboxRetentionJob", () => {
  it("removes events older than the retention and keeps newer ones", async () => {
    captureLogs();
    let offset = 0;
    const store = new InMemoryOutboxStore({ now: () => Date.now() + offset });
    await store.append({ topic: "t", payload: { n: "old" }, originReplicaId: "r" });
    offset = 25 * HOUR;
    const fresh = await store.append({ topic: "t", payload: { n: "new" }, originReplicaId: "r" });
    const job = new OutboxRetentionJob({ store, retentionHours: 24 });
    expect(await job.runOnce()).toBe(1);
    expect(await store.listAfter(null, 10)).toEqual([fresh]);
  });

  it("sweeps 60 s after start, then every 6 h", async () => {
    captureLogs();
    vi.useFakeTimers();
    const store = pruneSpy();
    const job = new OutboxRetentionJob({ store, retentionHours: 24 });
    job.start();
    await vi.advanceTimersByTimeAsync(59_999);
    expect(store.calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.calls).toEqual([24 * HOUR]);
    await vi.advanceTimersByTimeAsync(6 * HOUR - 1);
    expect(store.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.calls).toHaveLength(2);
    await job.stop();
    await vi.advanceTimersByTimeAsync(24 * HOUR);
    expect(store.calls).toHaveLength(2);
  });

  it("takes its delays from the caller", async () => {
    captureLogs();
    vi.useFakeTimers();
    const store = pruneSpy();
    const job = new OutboxRetentionJob({ store, retentionHours: 1, initialDelayMs: 10, intervalMs: 100 });
    job.start();
    await vi.advanceTimersByTimeAsync(10 + 100 + 100);
    expect(store.calls).toEqual([HOUR, HOUR, HOUR]);
    await job.stop();
  });

  it.each([0, -3, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("is disabled by %s hours: it never prunes", async (hours) => {
    const logs = captureLogs();
    vi.useFakeTimers();
    const store = pruneSpy();
    const job = new OutboxRetentionJob({ store, retentionHours: hours });
    expect(job.enabled).toBe(false);
    job.start();
    await vi.advanceTimersByTimeAsync(7 * HOUR);
    expect(await job.runOnce()).toBe(0);
    expect(store.calls).toEqual([]);
    expect(logs).toContainEqual(expect.objectContaining({ level: "info", msg: "outbox retention disabled" }));
  });

  it("never keeps the process alive: its timers are unref'd", async () => {
    captureLogs();
    const timeouts = vi.spyOn(globalThis, "setTimeout");
    const job = new OutboxRetentionJob({ store: pruneSpy(), retentionHours: 24, initialDelayMs: 5, intervalMs: 5 });
    job.start();
    await new Promise((resolve) => setTimeout(resolve, 40));
    await job.stop();
    const handles = timeouts.mock.results
      .filter((_result, index) => timeouts.mock.calls[index][1] === 5)
      .map((result) => result.value as NodeJS.Timeout);
    expect(handles.length).toBeGreaterThanOrEqual(2);
    for (const handle of handles) expect(handle.hasRef()).toBe(false);
  });

  it("never overlaps sweeps: a sweep asked for while one runs joins it", async () => {
    captureLogs();
    vi.useFakeTimers();
    const store = pruneSpy();
    store.hold = true;
    const job = new OutboxRetentionJob({ store, retentionHours: 24, initialDelayMs: 10, intervalMs: 10 });
    job.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(store.calls).toHaveLength(1);
    const joined = job.runOnce();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(store.calls).toHaveLength(1);
    store.hold = false;
    store.release(5);
    expect(await joined).toBe(5);
    await vi.advanceTimersByTimeAsync(10);
    expect(store.calls).toHaveLength(2);
    await job.stop();
  });

  it("logs a failed sweep, never throws, and sweeps again next time", async () => {
    const logs = captureLogs();
    vi.useFakeTimers();
    const store = pruneSpy();
    store.fail = true;
    const job = new OutboxRetentionJob({ store, retentionHours: 24, initialDelayMs: 10, intervalMs: 10 });
    job.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(await job.runOnce()).toBe(0);
    expect(logs).toContainEqual(expect.objectContaining({ level: "warn", msg: expect.stringContaining("prune failed") }));
    store.fail = false;
    await vi.advanceTimersByTimeAsync(10);
    expect(store.calls.length).toBeGreaterThanOrEqual(3);
    await job.stop();
  });

  it("stop() waits for a sweep in progress", async () => {
    captureLogs();
    const store = pruneSpy();
    store.hold = true;
    const job = new OutboxRetentionJob({ store, retentionHours: 24 });
    const sweep = job.runOnce();
    let stopped = false;
    const stopping = job.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    store.release(2);
    await stopping;
    expect(await sweep).toBe(2);
  });
});
