import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { InMemoryLeaseStore, InMemoryOutboxStore, type Logger, MaintenanceLoop, OutboxRetentionJob } from "../../src";
import { type LogEntry, recordingLogger } from "../coordination/support";

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

let logger: Logger;
let logs: LogEntry[];
beforeEach(() => {
  ({ logger, entries: logs } = recordingLogger());
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("OutboxRetentionJob", () => {
  it("removes events older than the retention and keeps newer ones", async () => {
    let offset = 0;
    const store = new InMemoryOutboxStore({ now: () => Date.now() + offset });
    await store.append({ topic: "t", payload: { n: "old" }, originReplicaId: "r" });
    offset = 25 * HOUR;
    const fresh = await store.append({ topic: "t", payload: { n: "new" }, originReplicaId: "r" });
    const job = new OutboxRetentionJob({ store, logger, retentionHours: 24 });
    expect(await job.runOnce()).toBe(1);
    expect(await store.listAfter(null, 10)).toEqual([fresh]);
  });

  it("is a maintenance task: first 60 s after a replica starts leading, then every 6 h", () => {
    const job = new OutboxRetentionJob({ store: pruneSpy(), logger, retentionHours: 24 });
    expect(job.maintenanceTasks()).toEqual([job]);
    expect(job).toMatchObject({ name: "outbox-retention", initialDelayMs: 60_000, intervalMs: 6 * HOUR });
    expect(new OutboxRetentionJob({ store: pruneSpy(), logger, retentionHours: 1, initialDelayMs: 10, intervalMs: 100 })).toMatchObject({
      initialDelayMs: 10,
      intervalMs: 100,
    });
  });

  it("sweeps on the maintenance leader only, at its period", async () => {
    const leases = new InMemoryLeaseStore();
    const stores = [pruneSpy(), pruneSpy()];
    const loops = stores.map(
      (store, i) =>
        new MaintenanceLoop({
          store: leases,
          replicaId: `r${i}`,
          logger,
          intervalMs: 20,
          tasks: new OutboxRetentionJob({ store, logger, retentionHours: 1, initialDelayMs: 0, intervalMs: 20 }).maintenanceTasks(),
        }),
    );
    for (const loop of loops) loop.start();
    await vi.waitFor(() => expect(stores.map((store) => store.calls.length).sort()).toEqual([0, expect.any(Number)]), { timeout: 2_000 });
    await vi.waitFor(() => expect(Math.max(...stores.map((store) => store.calls.length))).toBeGreaterThanOrEqual(3), { timeout: 2_000 });
    expect(stores.filter((store) => store.calls.length > 0)).toHaveLength(1);
    await Promise.all(loops.map((loop) => loop.stop()));
  });

  it.each([0, -3, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("is disabled by %s hours: it never prunes", async (hours) => {
    const store = pruneSpy();
    const job = new OutboxRetentionJob({ store, logger, retentionHours: hours });
    expect(job.enabled).toBe(false);
    expect(job.maintenanceTasks()).toEqual([]);
    expect(await job.runOnce()).toBe(0);
    expect(store.calls).toEqual([]);
    expect(logs).toContainEqual(expect.objectContaining({ level: "info", msg: "outbox retention disabled" }));
  });

  it("never overlaps sweeps: a sweep asked for while one runs joins it", async () => {
    const store = pruneSpy();
    store.hold = true;
    const job = new OutboxRetentionJob({ store, logger, retentionHours: 24 });
    const first = job.run();
    const joined = job.runOnce();
    expect(store.calls).toHaveLength(1);
    store.hold = false;
    store.release(5);
    expect(await first).toBe(5);
    expect(await joined).toBe(5);
    expect(await job.runOnce()).toBe(3);
    expect(store.calls).toHaveLength(2);
  });

  it("logs a failed sweep, never throws, and sweeps again next time", async () => {
    const store = pruneSpy();
    store.fail = true;
    const job = new OutboxRetentionJob({ store, logger, retentionHours: 24 });
    expect(await job.runOnce()).toBe(0);
    expect(logs).toContainEqual(expect.objectContaining({ level: "warn", msg: expect.stringContaining("prune failed") }));
    store.fail = false;
    expect(await job.runOnce()).toBe(3);
  });
});
