import type { LeaseStore } from "@axiom-lattice/protocols";
import { afterEach, describe, expect, it, vi } from "vitest";
import { InMemoryLeaseStore, MAINTENANCE_LEASE_KEY, MaintenanceLoop, type MaintenanceTask, holderLabel } from "../../src";
import { recordingLogger } from "./support";

// Real timers with short intervals: leadership is handed over through lease expiry and bids. Not
// shorter: a replica whose event loop stalls past the TTL (a loaded CI machine) loses its lease, as it
// should, and a test expecting one leader throughout would fail for the machine, not the loop.
const INTERVAL_MS = 100;
const TTL_MS = 3 * INTERVAL_MS;

/**
 * One replica's view of a shared lease store; `kill()` freezes it like a SIGKILLed process: every
 * call it makes from then on never answers, so its lease is neither renewed nor released.
 */
function replicaView(shared: LeaseStore): { store: LeaseStore; kill(): void } {
  let dead = false;
  const never = new Promise<never>(() => {});
  const view = {
    acquire: (...args: Parameters<LeaseStore["acquire"]>) => (dead ? never : shared.acquire(...args)),
    tryAcquire: (...args: Parameters<LeaseStore["tryAcquire"]>) => (dead ? never : shared.tryAcquire(...args)),
    renew: (...args: Parameters<LeaseStore["renew"]>) => (dead ? never : shared.renew(...args)),
    release: (...args: Parameters<LeaseStore["release"]>) => (dead ? never : shared.release(...args)),
    get: (...args: Parameters<LeaseStore["get"]>) => shared.get(...args),
  } as LeaseStore;
  return { store: view, kill: () => (dead = true) };
}

/** A task recording which replica ran it when, and how many replicas were inside it at once. */
function recordingTask(runs: Array<{ replica: string; at: number }>, inside: { now: number; max: number }, replica: string): MaintenanceTask {
  return {
    name: "record",
    intervalMs: INTERVAL_MS,
    async run() {
      inside.now += 1;
      inside.max = Math.max(inside.max, inside.now);
      runs.push({ replica, at: Date.now() });
      await new Promise((resolve) => setTimeout(resolve, 2));
      inside.now -= 1;
    },
  };
}

const loops: MaintenanceLoop[] = [];
const { logger } = recordingLogger();
afterEach(async () => {
  await Promise.all(loops.splice(0).map((loop) => loop.stop()));
});

function start(store: LeaseStore, replicaId: string, tasks: MaintenanceTask[]): MaintenanceLoop {
  const loop = new MaintenanceLoop({ store, replicaId, logger, intervalMs: INTERVAL_MS, tasks });
  loops.push(loop);
  loop.start();
  return loop;
}

const leader = async (store: LeaseStore) => {
  const lease = await store.get(MAINTENANCE_LEASE_KEY);
  return lease && holderLabel(lease.holder);
};

describe("MaintenanceLoop", () => {
  it("runs its tasks on exactly one of several replicas, every interval, under leader:maintenance", async () => {
    const shared = new InMemoryLeaseStore();
    const runs: Array<{ replica: string; at: number }> = [];
    const inside = { now: 0, max: 0 };
    const replicas = ["r1", "r2", "r3"].map((id) => start(shared, id, [recordingTask(runs, inside, id)]));

    await vi.waitFor(() => expect(runs.length).toBeGreaterThanOrEqual(5), { timeout: 5_000 });
    const leaderId = await leader(shared);
    expect(new Set(runs.map((run) => run.replica))).toEqual(new Set([leaderId]));
    expect(replicas.filter((loop) => loop.leading)).toHaveLength(1);
    expect(inside.max).toBe(1);
  });

  it("hands over when the leader stops: a peer leads at its next bid", async () => {
    const shared = new InMemoryLeaseStore();
    const runs: Array<{ replica: string; at: number }> = [];
    const inside = { now: 0, max: 0 };
    const first = start(shared, "r1", [recordingTask(runs, inside, "r1")]);
    await vi.waitFor(() => expect(first.leading).toBe(true));
    start(shared, "r2", [recordingTask(runs, inside, "r2")]);

    await first.stop();
    expect(await leader(shared)).not.toBe("r1");
    await vi.waitFor(() => expect(runs.at(-1)?.replica).toBe("r2"), { timeout: 2_000 });
    expect(inside.max).toBe(1);
  });

  it("hands over when the leader dies (no renewal, no release): a peer leads once the lease expired, never before", async () => {
    const shared = new InMemoryLeaseStore();
    const runs: Array<{ replica: string; at: number }> = [];
    const inside = { now: 0, max: 0 };
    const doomed = replicaView(shared);
    start(doomed.store, "r1", [recordingTask(runs, inside, "r1")]);
    await vi.waitFor(() => expect(runs.length).toBeGreaterThan(0));
    start(shared, "r2", [recordingTask(runs, inside, "r2")]);
    await new Promise((resolve) => setTimeout(resolve, 3 * INTERVAL_MS));
    expect(runs.every((run) => run.replica === "r1")).toBe(true);

    doomed.kill();
    loops.shift(); // dead: it is never stopped, its frozen calls never answer
    const killedAt = Date.now();
    const lease = await shared.get(MAINTENANCE_LEASE_KEY);
    await vi.waitFor(() => expect(runs.at(-1)?.replica).toBe("r2"), { timeout: 2_000 });
    const takeover = runs.find((run) => run.replica === "r2")!;
    // Not before the dead leader's lease expired; within its TTL and one bid after the kill.
    expect(takeover.at).toBeGreaterThanOrEqual(lease!.expiresAt.getTime());
    expect(takeover.at - killedAt).toBeLessThan(TTL_MS + INTERVAL_MS + 1_000);
    expect(await leader(shared)).toBe("r2");
  });

  it("keeps leading when a task fails, and runs it again next period", async () => {
    const shared = new InMemoryLeaseStore();
    let attempts = 0;
    const loop = start(shared, "r1", [
      {
        name: "flaky",
        intervalMs: INTERVAL_MS,
        async run() {
          attempts += 1;
          throw new Error("database unavailable");
        },
      },
    ]);
    await vi.waitFor(() => expect(attempts).toBeGreaterThanOrEqual(3), { timeout: 2_000 });
    expect(loop.leading).toBe(true);
  });

  it("waits a task's initial delay after leadership begins, then runs it at its own period", async () => {
    const shared = new InMemoryLeaseStore();
    const times: number[] = [];
    const loop = start(shared, "r1", [{ name: "late", intervalMs: 60_000, initialDelayMs: 50, run: async () => void times.push(Date.now()) }]);
    await vi.waitFor(() => expect(loop.leading).toBe(true));
    const ledAt = (await shared.get(MAINTENANCE_LEASE_KEY))!.acquiredAt.getTime();
    await vi.waitFor(() => expect(times).toHaveLength(1), { timeout: 2_000 });
    expect(times[0]).toBeGreaterThanOrEqual(ledAt + 50);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(times).toHaveLength(1);
  });
});
