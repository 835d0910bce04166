// Who hears of a queued message: the replica that queued it starts the thread itself, and tells its
// peers only when it has not taken the thread after the delay (issue 42: every message used to wake
// every replica, each peer spending a refused lease, or a whole empty tenure, on it).
import { InMemoryLeaseStore, threadRunLeaseKey } from "@axiom-lattice/core";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { manager, scope, sharedStores, shutdownManagers, thread } from "./support";

/** Counts lease acquisitions: one per attempt at a thread's tenure, refused ones included. */
class CountingLeaseStore extends InMemoryLeaseStore {
  acquired = 0;
  readonly byKey = new Map<string, number>();

  override acquire(key: string, holder: string, ttlMs: number) {
    this.acquired += 1;
    this.byKey.set(key, (this.byKey.get(key) ?? 0) + 1);
    return super.acquire(key, holder, ttlMs);
  }
}

const DELAY_MS = 20;

describe("peer wake-ups", () => {
  afterEach(() => shutdownManagers());

  it("tells no peer of a message its replica takes itself: one tenure per message, whatever the replicas", async () => {
    const leases = new CountingLeaseStore();
    const stores = await sharedStores({}, leases);
    const notices: string[] = [];
    stores.wakeup.subscribe((notice) => void notices.push(notice.threadId));
    const a = manager(stores, { replicaId: "a", peerWakeDelayMs: DELAY_MS });
    manager(stores, { replicaId: "b", peerWakeDelayMs: DELAY_MS });
    manager(stores, { replicaId: "c", peerWakeDelayMs: DELAY_MS });

    for (const threadId of ["t-1", "t-2", "t-3"]) {
      const run = await a.getAgent(thread(threadId)).addMessage({ message: "/sleep 60" }, { mode: "wait" });
      expect((await run.completion).status).toBe("success");
    }
    // Past every delay: a notice would have been sent (and acted on) by now.
    await sleep(DELAY_MS * 5);
    expect(notices).toEqual([]);
    expect(leases.acquired).toBe(3);
  });

  it("tells its peers while its run slots are full, and a peer runs the message", async () => {
    const stores = await sharedStores();
    const a = manager(stores, { replicaId: "a", peerWakeDelayMs: DELAY_MS, maxConcurrentRuns: 1 });
    manager(stores, { replicaId: "b", peerWakeDelayMs: DELAY_MS });

    const busy = await a.getAgent(thread("t-busy")).addMessage({ message: "/sleep 1000" }, { mode: "wait" });
    const waiting = await a.getAgent(thread("t-waiting")).addMessage({ message: "hello" }, { mode: "wait", messageId: "m-waiting" });
    expect((await waiting.completion).status).toBe("success");
    // Finished by the peer while a's only slot was still taken.
    expect((await stores.queue.getMessage("m-waiting", scope))?.replicaId).toBe("b");
    expect((await busy.completion).status).toBe("success");
  });

  it("a peer with no run slot free leaves the thread waiting at its sender: one tenure for the message", async () => {
    const leases = new CountingLeaseStore();
    const stores = await sharedStores({}, leases);
    const a = manager(stores, { replicaId: "a", peerWakeDelayMs: DELAY_MS, maxConcurrentRuns: 1 });
    const b = manager(stores, { replicaId: "b", peerWakeDelayMs: DELAY_MS, maxConcurrentRuns: 1 });

    const busyA = await a.getAgent(thread("t-busy-a")).addMessage({ message: "/sleep 600" }, { mode: "wait" });
    const busyB = await b.getAgent(thread("t-busy-b")).addMessage({ message: "/sleep 600" }, { mode: "wait" });
    const waiting = await a.getAgent(thread("t-waiting")).addMessage({ message: "hello" }, { mode: "wait", messageId: "m-waiting" });
    expect((await waiting.completion).status).toBe("success");
    await Promise.all([busyA.completion, busyB.completion]);
    await sleep(DELAY_MS * 5);
    // b, told while its only slot was taken, queued nothing: no refused lease, no empty tenure.
    expect(leases.byKey.get(threadRunLeaseKey(thread("t-waiting")))).toBe(1);
    expect((await stores.queue.getMessage("m-waiting", scope))?.replicaId).toBe("a");
  });
});
