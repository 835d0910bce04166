import { messageQueueStoreContract, runRecords } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { InMemoryMessageQueueStore } from "../../src";

// In one process every "peer" is the same instance: that is what the replicas of one process share.
messageQueueStoreContract("in-memory", {
  async open(count, options) {
    const store = new InMemoryMessageQueueStore(options);
    return Array.from({ length: count }, () => store);
  },
});

describe("InMemoryMessageQueueStore", () => {
  it("keeps only the latest retainedRuns run records per thread", async () => {
    const store = new InMemoryMessageQueueStore({ retainedRuns: 2 });
    const scope = { tenantId: "t" };
    const added: string[] = [];
    for (let n = 0; n < 4; n += 1) {
      added.push((await store.addMessage({ threadId: "th", scope, content: n })).id);
      await store.claimPendingMessages({ ...scope, threadId: "th" }, { owner: "o#1", leaseMs: 1_000 });
      await store.completeMessage(added[n], "o#1", { status: "success" });
    }
    expect((await runRecords(store, { ...scope, threadId: "th" })).map((run) => run.id)).toEqual(added.slice(2));
    expect(await store.getMessage(added[0], scope)).toBeNull();
  });

  it("judges leases by its own clock", async () => {
    let now = 1_000_000;
    const store = new InMemoryMessageQueueStore({ now: () => now });
    const { id } = await store.addMessage({ threadId: "th", scope: {}, content: "x" });
    await store.claimPendingMessages({ threadId: "th" }, { owner: "o#1", leaseMs: 500 });
    now += 499;
    expect(await store.reclaimExpiredProcessing({ threadId: "th" })).toBe(0);
    now += 1;
    expect(await store.reclaimExpiredProcessing({ threadId: "th" })).toBe(1);
    expect((await store.getMessage(id, {}))?.status).toBe("pending");
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses a capacity of %s", (capacity) => {
    expect(() => new InMemoryMessageQueueStore({ capacity })).toThrow(expect.objectContaining({ code: "INVALID_STORE_ARGUMENT" }));
  });
});
