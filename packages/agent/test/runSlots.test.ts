import { afterEach, describe, expect, it } from "vitest";
import { RunSlots } from "../src/runtime/runSlots";
import { eventually } from "@axiom-lattice/testing";
import { manager, sharedStores, shutdownManagers, thread } from "./support";

describe("RunSlots", () => {
  it("hands out at most `limit` slots, then serves waiters first come, first served", async () => {
    const slots = new RunSlots(2);
    const first = await slots.acquire();
    await slots.acquire();
    const order: number[] = [];
    const third = slots.acquire().then((release) => (order.push(3), release));
    const fourth = slots.acquire().then((release) => (order.push(4), release));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    expect(slots.queued).toBe(2);
    first();
    first();
    (await third)();
    await fourth;
    expect(order).toEqual([3, 4]);
    expect(slots.running).toBe(2);
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses the limit %s", (limit) => {
    expect(() => new RunSlots(limit)).toThrow(RangeError);
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
});
