// What the queue sweep wakes (issue 42). A thread with pending messages and no run owner is an
// orphan (its sender died, its wake-up was lost) or a thread waiting for a run slot at a live replica;
// the sweep cannot tell them apart. Waking every one on every replica cost each peer a late tenure
// (or a refused lease) per queued message in a backlog; now a pass wakes only as many as it has slots
// free, and past that only work that waited `orphanAfterMs`, so an orphan still runs in a saturated cluster.
import { InMemoryLeaseStore, type QueueWakeup, threadRunLeaseKey } from "@axiom-lattice/core";
import { eventually } from "@axiom-lattice/testing";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { manager, runStatus, scope, sharedStores, shutdownManagers, thread } from "./support";

/** Counts lease acquisitions by key: one per attempt at a thread's tenure, refused ones included. */
class CountingLeaseStore extends InMemoryLeaseStore {
  readonly byKey = new Map<string, number>();

  override acquire(key: string, holder: string, ttlMs: number) {
    this.byKey.set(key, (this.byKey.get(key) ?? 0) + 1);
    return super.acquire(key, holder, ttlMs);
  }
}

/** No peer notices: only the sweeps move threads between replicas. */
const lostWakeups: QueueWakeup = { notify: async () => {}, subscribe: () => () => {} };

const SWEEP_MS = 25;

describe("queue sweep", () => {
  afterEach(() => shutdownManagers());

  it("leaves a thread waiting for a slot at its live sender to it when the sweeping replica has no slot free: one tenure", async () => {
    const leases = new CountingLeaseStore();
    const stores = await sharedStores({}, leases);
    const a = manager(stores, { replicaId: "a", wakeup: lostWakeups, maxConcurrentRuns: 1 });
    const b = manager(stores, { replicaId: "b", wakeup: lostWakeups, maxConcurrentRuns: 1 });
    a.startQueueSweep({ intervalMs: SWEEP_MS, orphanAfterMs: 60_000 });
    b.startQueueSweep({ intervalMs: SWEEP_MS, orphanAfterMs: 60_000 });

    // b's only slot stays taken past a's; meanwhile the waiting thread is pending with no owner for
    // many of b's passes, and b would queue it behind its own run, to reach the lease after a ran it.
    const busyB = await b.getAgent(thread("t-busy-b")).addMessage({ message: "/sleep 900" }, { mode: "wait" });
    const busyA = await a.getAgent(thread("t-busy-a")).addMessage({ message: "/sleep 400" }, { mode: "wait" });
    const waiting = await a.getAgent(thread("t-waiting")).addMessage({ message: "hello" }, { mode: "wait", messageId: "m-waiting" });
    expect((await waiting.completion).status).toBe("success");
    await Promise.all([busyA.completion, busyB.completion]);
    await sleep(SWEEP_MS * 6);

    expect(leases.byKey.get(threadRunLeaseKey(thread("t-waiting")))).toBe(1);
    expect((await stores.queue.getMessage("m-waiting", scope))?.replicaId).toBe("a");
  });

  it("leaves a thread queued within the last pass to its sender, even with a slot free: one lease attempt", async () => {
    // The sender takes its time to reach the lease (a slow database, a busy event loop).
    class SlowForA extends CountingLeaseStore {
      override async acquire(key: string, holder: string, ttlMs: number) {
        if (holder.startsWith("a")) await sleep(300);
        return super.acquire(key, holder, ttlMs);
      }
    }
    const leases = new SlowForA();
    const stores = await sharedStores({}, leases);
    const a = manager(stores, { replicaId: "a", wakeup: lostWakeups });
    const b = manager(stores, { replicaId: "b", wakeup: lostWakeups });

    const run = await a.getAgent(thread("t-new")).addMessage({ message: "hello" }, { mode: "wait", messageId: "m-new" });
    // b's first pass comes at once, while a has not reached the lease yet; its next, after a ran it.
    b.startQueueSweep({ intervalMs: 1_000, orphanAfterMs: 60_000 });
    expect((await run.completion).status).toBe("success");
    expect(leases.byKey.get(threadRunLeaseKey(thread("t-new")))).toBe(1);
    expect((await stores.queue.getMessage("m-new", scope))?.replicaId).toBe("a");
  });

  it("wakes a thread waiting at a busy replica when it has a slot free: the idle replica runs it", async () => {
    const stores = await sharedStores();
    const a = manager(stores, { replicaId: "a", wakeup: lostWakeups, maxConcurrentRuns: 1 });
    const b = manager(stores, { replicaId: "b", wakeup: lostWakeups, maxConcurrentRuns: 1 });
    b.startQueueSweep({ intervalMs: SWEEP_MS, orphanAfterMs: 60_000 });

    const busy = await a.getAgent(thread("t-busy")).addMessage({ message: "/sleep 2000" }, { mode: "wait" });
    const waiting = await a.getAgent(thread("t-waiting")).addMessage({ message: "hello" }, { mode: "wait", messageId: "m-waiting" });
    expect((await waiting.completion).status).toBe("success");
    expect((await stores.queue.getMessage("m-waiting", scope))?.replicaId).toBe("b");
    expect(await runStatus(stores, busy.messageId)).toBe("running");
    await busy.completion;
  });

  it("wakes an orphan once it waited orphanAfterMs even with every slot taken, and it runs when one frees", async () => {
    const stores = await sharedStores();
    const b = manager(stores, { replicaId: "b", wakeup: lostWakeups, maxConcurrentRuns: 1 });
    const busy = await b.getAgent(thread("t-busy")).addMessage({ message: "/sleep 2500" }, { mode: "wait" });
    // Queued by a replica that died before waking anyone: nobody processes the thread.
    const orphan = await stores.queue.addMessage({ threadId: "t-orphan", scope, content: { message: "anyone there?" } });
    b.startQueueSweep({ intervalMs: SWEEP_MS, orphanAfterMs: 300 });

    // Queued for b's slot while the busy run still holds it: woken by its age, not by a free slot.
    await eventually("the orphan to wait for b's slot", () => b.stats().waitingThreads === 1, { timeoutMs: 1_500 });
    expect(await runStatus(stores, busy.messageId)).toBe("running");
    await eventually("the orphan to run", async () => (await runStatus(stores, orphan.id)) === "success", { timeoutMs: 5_000 });
  });

  it("a replica shutting down hands the threads waiting for its slots to its peers at once, slots free or not", async () => {
    const stores = await sharedStores();
    const a = manager(stores, { replicaId: "a", maxConcurrentRuns: 1 });
    const b = manager(stores, { replicaId: "b", maxConcurrentRuns: 1 });
    b.startQueueSweep({ intervalMs: SWEEP_MS, orphanAfterMs: 60_000 });
    const busyB = await b.getAgent(thread("t-busy-b")).addMessage({ message: "/sleep 2500" }, { mode: "wait" });
    await a.getAgent(thread("t-busy-a")).addMessage({ message: "/sleep 2500" }, { mode: "wait", messageId: "m-busy-a" });
    await a.getAgent(thread("t-waiting")).addMessage({ message: "hello" }, { mode: "wait", messageId: "m-waiting" });
    await a.shutdown();

    // Both wait for b's slot (the run a handed back, and the thread that waited for a's) before it frees.
    await eventually("b to queue both threads", () => b.stats().waitingThreads === 2, { timeoutMs: 1_500 });
    expect(await runStatus(stores, busyB.messageId)).toBe("running");
    await eventually("both to run on b", async () => (await runStatus(stores, "m-waiting")) === "success" && (await runStatus(stores, "m-busy-a")) === "success", {
      timeoutMs: 8_000,
    });
    expect((await stores.queue.getMessage("m-waiting", scope))?.replicaId).toBe("b");
  }, 15_000);
});
