import { afterEach, describe, expect, it } from "vitest";
import { RunSlots } from "../src/runtime/runSlots";
import { InMemoryLeaseStore } from "@axiom-lattice/core";
import { eventually } from "@axiom-lattice/testing";
import { ASSISTANT, manager, sharedStores, shutdownManagers, thread } from "./support";

/** Counts lease acquisitions: one per tenure of a thread (slot, lease, claims). */
class CountingLeaseStore extends InMemoryLeaseStore {
  acquired = 0;

  override acquire(key: string, holder: string, ttlMs: number) {
    this.acquired += 1;
    return super.acquire(key, holder, ttlMs);
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Acquires a slot for `tenantId`, recording `label` in `order` once it is given. */
const queueFor = (slots: RunSlots, tenantId: string, order: string[], label: string) =>
  slots.acquire(tenantId).then((release) => (order.push(label), release));

describe("RunSlots", () => {
  it("hands out at most `limit` slots, then serves one tenant's waiters first come, first served", async () => {
    const slots = new RunSlots(2);
    const first = await slots.acquire("a");
    await slots.acquire("a");
    const order: string[] = [];
    const third = queueFor(slots, "a", order, "3");
    const fourth = queueFor(slots, "a", order, "4");
    await settle();
    expect(order).toEqual([]);
    expect(slots.queued).toBe(2);
    first();
    first();
    (await third)();
    await fourth;
    expect(order).toEqual(["3", "4"]);
    expect(slots.running).toBe(2);
  });

  it("serves another tenant's waiter at the next release, ahead of a backlog queued before it", async () => {
    const slots = new RunSlots(2);
    const held = [await slots.acquire("a"), await slots.acquire("a")];
    const order: string[] = [];
    const backlog = Array.from({ length: 50 }, (_, index) => queueFor(slots, "a", order, `a${index}`));
    const b = queueFor(slots, "b", order, "b");
    await settle();
    expect(slots.byTenant().get("a")).toEqual({ running: 2, waiting: 50 });
    expect(slots.byTenant().get("b")).toEqual({ running: 0, waiting: 1 });
    held[0]();
    await settle();
    expect(order).toEqual(["b"]);
    held[1]();
    (await b)();
    for (const waiter of backlog) (await waiter)();
    expect(order).toEqual(["b", ...backlog.map((_, index) => `a${index}`)]);
    expect(slots.running).toBe(0);
    expect(slots.byTenant().size).toBe(0);
  });

  it("gives a freed slot to the waiting tenant holding fewest", async () => {
    const slots = new RunSlots(3);
    const a = await slots.acquire("a");
    await slots.acquire("a");
    await slots.acquire("b");
    const order: string[] = [];
    const waiters = [queueFor(slots, "a", order, "a"), queueFor(slots, "b", order, "b")];
    await settle();
    a();
    // a then holds 1 and b 1: equal, and a asked first.
    await waiters[0];
    expect(order).toEqual(["a"]);
  });

  it("takes turns between tenants holding equally many slots", async () => {
    const slots = new RunSlots(1);
    const first = await slots.acquire("a");
    const order: string[] = [];
    const waiters = [queueFor(slots, "a", order, "a1"), queueFor(slots, "a", order, "a2"), queueFor(slots, "b", order, "b1"), queueFor(slots, "b", order, "b2")];
    await settle();
    first();
    for (let served = 0; served < waiters.length; served += 1) {
      await settle();
      const next = waiters[["a1", "a2", "b1", "b2"].indexOf(order[served])];
      (await next)();
    }
    expect(order).toEqual(["a1", "b1", "a2", "b2"]);
  });

  it("keeps a tenant to its cap even with slots free, and serves it again once under it", async () => {
    const slots = new RunSlots(4, 2);
    const first = await slots.acquire("a");
    await slots.acquire("a");
    const order: string[] = [];
    const third = queueFor(slots, "a", order, "a3");
    await settle();
    expect(order).toEqual([]);
    expect(slots.running).toBe(2);
    await slots.acquire("b");
    first();
    await third;
    expect(order).toEqual(["a3"]);
    expect(slots.byTenant().get("a")).toEqual({ running: 2, waiting: 0 });
  });

  it("never exceeds the limit or a tenant's cap under a racing workload, and serves every waiter once", async () => {
    const limit = 5;
    const tenantLimit = 3;
    const slots = new RunSlots(limit, tenantLimit);
    const held = new Map<string, number>();
    let total = 0;
    let peakTotal = 0;
    const peakByTenant = new Map<string, number>();
    let served = 0;
    const work = async (tenantId: string) => {
      const release = await slots.acquire(tenantId);
      served += 1;
      total += 1;
      held.set(tenantId, (held.get(tenantId) ?? 0) + 1);
      peakTotal = Math.max(peakTotal, total);
      peakByTenant.set(tenantId, Math.max(peakByTenant.get(tenantId) ?? 0, held.get(tenantId)!));
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 3)));
      total -= 1;
      held.set(tenantId, held.get(tenantId)! - 1);
      release();
      // A second release of the same slot must not free another.
      release();
    };
    const jobs: Promise<void>[] = [];
    for (let index = 0; index < 600; index += 1) {
      // Tenant a floods; b, c and d trickle in between.
      const tenantId = index % 4 === 0 ? ["b", "c", "d"][index % 3] : "a";
      jobs.push(work(tenantId));
      if (index % 25 === 0) await settle();
    }
    await Promise.all(jobs);
    expect(served).toBe(600);
    expect(peakTotal).toBe(limit);
    for (const [tenantId, peak] of peakByTenant) expect(peak, tenantId).toBeLessThanOrEqual(tenantLimit);
    expect(peakByTenant.get("a")).toBe(tenantLimit);
    expect(slots.running).toBe(0);
    expect(slots.queued).toBe(0);
  });

  it("tells a holder when another thread waits for the slot it would free", async () => {
    const slots = new RunSlots(2, 1);
    await slots.acquire("a");
    expect(slots.othersWaiting("a")).toBe(false);
    await slots.acquire("b");
    void slots.acquire("b");
    // b waits, but holds its cap already: nothing a's holder gives up would go to it.
    expect(slots.othersWaiting("a")).toBe(false);
    // The slot b's holder frees goes to b's waiter.
    expect(slots.othersWaiting("b")).toBe(true);
    void slots.acquire("a");
    expect(slots.othersWaiting("a")).toBe(true);
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses the limit %s", (limit) => {
    expect(() => new RunSlots(limit)).toThrow(RangeError);
  });

  it.each([0, 1.5, 5])("refuses the per-tenant limit %s of 4 slots", (tenantLimit) => {
    expect(() => new RunSlots(4, tenantLimit)).toThrow(RangeError);
  });
});

describe("maxConcurrentRuns", () => {
  afterEach(() => shutdownManagers());

  it("never runs more threads at once than the limit, and still runs every thread", async () => {
    const stores = await sharedStores();
    const replica = manager(stores, { maxConcurrentRuns: 2 });
    const threads = ["a", "b", "c", "d", "e"].map((id) => thread(`slots-${id}`));
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, replica.stats().runningThreads);
    }, 1);
    try {
      const results = await Promise.all(
        threads.map((scope) => replica.getAgent(scope).addMessage({ message: "/sleep 150" }, { mode: "wait" }).then((r) => r.completion)),
      );
      expect(results.map((result) => result.status)).toEqual(threads.map(() => "success"));
    } finally {
      clearInterval(sampler);
    }
    expect(peak).toBe(2);
    await eventually("slots released", () => replica.stats().runningThreads === 0, { timeoutMs: 2_000 });
  });

  it("serves the threads of one tenant in turns: a thread with a queue gives its slot up between runs", async () => {
    const stores = await sharedStores();
    const finished: string[] = [];
    const replica = manager(stores, { maxConcurrentRuns: 1, onRunCompleted: ({ message }) => finished.push(message.id) });
    const long = replica.getAgent(thread("long"));
    const runs = [];
    for (const id of ["long-1", "long-2", "long-3"]) runs.push(await long.addMessage({ message: "/sleep 100" }, { mode: "wait", messageId: id }));
    await eventually("the long thread runs", () => replica.stats().runningThreads === 1, { timeoutMs: 2_000 });
    runs.push(await replica.getAgent(thread("short")).addMessage({ message: "hello" }, { mode: "wait", messageId: "short-1" }));
    for (const run of runs) expect((await run.completion).status).toBe("success");
    // Queued behind the long thread's three runs, the short one waited for one of them, not all three.
    expect(finished).toEqual(["long-1", "short-1", "long-2", "long-3"]);
  });

  it("answers every wake-up that arrives before a claim with that claim: no second tenure for the run's own wake-ups", async () => {
    const leases = new CountingLeaseStore();
    const stores = await sharedStores({}, leases);
    // Peers' wake-ups (this replica's own notices among them) held back: only the wake-ups below arrive.
    const replica = manager(stores, { peerWakeDelayMs: 60_000 });
    const scope = thread("woken");
    const run = await replica.getAgent(scope).addMessage({ message: "/sleep 200" }, { mode: "wait" });
    await eventually("the run started", () => replica.stats().runningThreads === 1, { timeoutMs: 2_000 });
    await replica.wake(scope);
    await replica.wake(scope);
    expect((await run.completion).status).toBe("success");
    await eventually("the thread's processor stopped", () => replica.stats().activeThreads === 0, { timeoutMs: 2_000 });
    expect(leases.acquired).toBe(1);
  });

  it("gives a slot up between runs when another tenant waits, so a long queue cannot keep it", async () => {
    const stores = await sharedStores();
    await stores.assistants.createAssistant("tenant-b", { id: ASSISTANT, name: "Echo bot", model: { provider: "scripted" }, tools: [] });
    const replica = manager(stores, { maxConcurrentRuns: 2 });
    const busy = [thread("busy-1"), thread("busy-2")];
    const backlog = busy.flatMap((scope) =>
      Array.from({ length: 6 }, () => replica.getAgent(scope).addMessage({ message: "/sleep 400" }, { mode: "wait" }).then((r) => r.completion)),
    );
    await eventually("both slots busy", () => replica.stats().runningThreads === 2, { timeoutMs: 2_000 });
    const started = Date.now();
    const b = await replica.getAgent(thread("quiet", "tenant-b")).addMessage({ message: "hello" }, { mode: "wait" });
    expect((await b.completion).status).toBe("success");
    // One run of tenant-a ends before b's starts (400 ms), not the six queued on each thread (2.4 s).
    expect(Date.now() - started).toBeLessThan(1_500);
    expect((await Promise.all(backlog)).every((result) => result.status === "success")).toBe(true);
  });
});
