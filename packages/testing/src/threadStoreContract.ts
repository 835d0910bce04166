// Real time, whatever a test file run before in the same worker left of the global timers.
import { setTimeout as sleep } from "node:timers/promises";
import type { Thread, ThreadStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { JSON_BYTES_BOUND, JSON_DEPTH_BOUND, nestedObject, objectOfJsonBytes } from "./jsonShapes";
import { forgedCursors, walkPages } from "./pageWalk";

const MINUTE = 60_000;
const PEERS = 4;

/**
 * The {@link ThreadStore} contract. Every implementation runs this same suite, so their semantics
 * cannot drift. `makeStore` may return the same store for every call. `makePeers(count)`: stores over
 * the same threads as `makeStore`'s, each on a pool of its own as replicas have (called after it);
 * default: that store itself.
 */
export function threadStoreContract(name: string, makeStore: () => Promise<ThreadStore>, makePeers?: (count: number) => Promise<ThreadStore[]>): void {
  describe(`ThreadStore contract: ${name}`, () => {
    let store: ThreadStore;
    let peers: ThreadStore[];
    beforeAll(async () => {
      store = await makeStore();
      peers = makePeers ? await makePeers(PEERS) : Array.from({ length: PEERS }, () => store);
    });

    /** The tenant's threads among those a claim handed out. */
    const claimedOf = (tenant: string, claimed: Thread[]) =>
      claimed
        .filter((thread) => thread.tenantId === tenant)
        .map((thread) => thread.id)
        .sort();

    it("creates a thread and reads it back", async () => {
      const tenant = fresh("tenant");
      const created = await store.createThread(tenant, { id: "t1", assistantId: "a1", metadata: { title: "hello", tags: ["x"] } });
      expect(created).toMatchObject({ id: "t1", tenantId: tenant, assistantId: "a1", metadata: { title: "hello", tags: ["x"] } });
      expect(created.createdAt).toBeInstanceOf(Date);
      expect(created.updatedAt.getTime()).toBe(created.createdAt.getTime());
      expect(await store.getThread(tenant, "t1")).toEqual(created);
      const generated = await store.createThread(tenant, { assistantId: "a1" });
      expect(generated.id).toMatch(/\S/);
      expect(generated.metadata).toEqual({});
    });

    it("refuses an id the tenant already uses, also when racers use it at once", async () => {
      const tenant = fresh("tenant");
      await store.createThread(tenant, { id: "same", assistantId: "a1", metadata: { n: 1 } });
      await expect(store.createThread(tenant, { id: "same", assistantId: "a2" })).rejects.toMatchObject({ code: "ALREADY_EXISTS", kind: "thread", id: "same" });
      expect((await store.getThread(tenant, "same"))?.metadata).toEqual({ n: 1 });

      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, (_, n) => store.createThread(tenant, { id: "raced", assistantId: `a${n}` })));
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      for (const outcome of outcomes) if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "ALREADY_EXISTS" });
    });

    it("isolates tenants: the same id in two tenants is two threads, invisible to each other", async () => {
      const [a, b] = [fresh("tenant"), fresh("tenant")];
      await store.createThread(a, { id: "shared", assistantId: "assistant", metadata: { owner: "a" } });
      expect(await store.getThread(b, "shared")).toBeNull();
      expect(await store.listThreads(b, { limit: 10 })).toEqual({ items: [], nextCursor: null });
      expect(await store.updateThread(b, "shared", { owner: "b" })).toBeNull();
      expect(await store.deleteThread(b, "shared")).toBe(false);
      await store.createThread(b, { id: "shared", assistantId: "assistant", metadata: { owner: "b" } });
      expect((await store.getThread(a, "shared"))?.metadata).toEqual({ owner: "a" });
      expect((await store.getThread(b, "shared"))?.metadata).toEqual({ owner: "b" });
      expect(await store.deleteThread(a, "shared")).toBe(true);
      expect((await store.getThread(b, "shared"))?.metadata).toEqual({ owner: "b" });
    });

    it("pages a tenant's threads newest first, each once, filtered by assistant", async () => {
      const tenant = fresh("tenant");
      // Created at once: many within one millisecond, told apart by the store's finer clock (or order).
      await Promise.all(Array.from({ length: 15 }, (_, n) => store.createThread(tenant, { id: `t${n}`, assistantId: n % 3 === 0 ? "b" : "a" })));
      const newestFirst = (await store.listThreads(tenant, { limit: 100 })).items;
      expect(newestFirst.map((thread) => thread.createdAt.getTime())).toEqual(newestFirst.map((thread) => thread.createdAt.getTime()).sort((a, b) => b - a));
      for (const limit of [1, 2, 4, 15, 100]) {
        const { items, pages } = await walkPages((page) => store.listThreads(tenant, page), limit);
        expect(items.map((thread) => thread.id)).toEqual(newestFirst.map((thread) => thread.id));
        expect(pages).toBe(Math.max(1, Math.ceil(15 / limit)));
      }
      const ofB = await walkPages((page) => store.listThreads(tenant, page, { assistantId: "b" }), 2);
      expect(ofB.items.map((thread) => thread.id)).toEqual(newestFirst.filter((thread) => thread.assistantId === "b").map((thread) => thread.id));
      expect(ofB.items.map((thread) => thread.id).sort()).toEqual(["t0", "t12", "t3", "t6", "t9"]);
      expect(await store.listThreads(tenant, { limit: 10 }, { assistantId: "nobody" })).toEqual({ items: [], nextCursor: null });
      expect(await store.listThreads(fresh("tenant"), { limit: 10 })).toEqual({ items: [], nextCursor: null });
    });

    it("pages on from its cursor when threads are created and deleted between pages, the cursor's own included", async () => {
      const tenant = fresh("tenant");
      for (const id of ["t1", "t2", "t3", "t4", "t5", "t6"]) await store.createThread(tenant, { id, assistantId: "a" });
      const { items } = await walkPages(
        (page) => store.listThreads(tenant, page),
        2,
        {
          between: async (pageIndex) => {
            if (pageIndex !== 0) return;
            // After [t6, t5]: the cursor's thread and a later one go, a newer one comes (it sorts before the cursor).
            await store.deleteThread(tenant, "t5");
            await store.deleteThread(tenant, "t2");
            await store.createThread(tenant, { id: "t7", assistantId: "a" });
          },
        },
      );
      expect(items.map((thread) => thread.id)).toEqual(["t6", "t5", "t4", "t3", "t1"]);
    });

    it.each(forgedCursors([1.5, "t1"]))("refuses a cursor that is %s with INVALID_CURSOR, and a limit out of bounds", async (_label, cursor) => {
      const tenant = fresh("tenant");
      await store.createThread(tenant, { id: "t1", assistantId: "a" });
      await expect(store.listThreads(tenant, { limit: 10, cursor })).rejects.toMatchObject({ code: "INVALID_CURSOR" });
      for (const limit of [0, 1.5, 1_001]) await expect(store.listThreads(tenant, { limit })).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
    });

    it("merges metadata on update and deletes", async () => {
      const tenant = fresh("tenant");
      const created = await store.createThread(tenant, { id: "t", assistantId: "a", metadata: { keep: 1, change: "old" } });
      const updated = await store.updateThread(tenant, "t", { change: "new", added: true });
      expect(updated?.metadata).toEqual({ keep: 1, change: "new", added: true });
      expect(updated!.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());
      expect(await store.getThread(tenant, "t")).toEqual(updated);
      expect(await store.updateThread(tenant, "missing", { a: 1 })).toBeNull();
      // Its config: none until set, replaced whole, kept by an update that does not name it.
      expect(created.config).toBeUndefined();
      await store.updateThread(tenant, "t", {}, { config: { configurable: { a: 1, b: 2 } } });
      expect((await store.updateThread(tenant, "t", {}, { config: { configurable: { a: 3 } } }))?.config).toEqual({ configurable: { a: 3 } });
      expect((await store.updateThread(tenant, "t", { more: 1 }))?.config).toEqual({ configurable: { a: 3 } });
      expect((await store.getThread(tenant, "t"))?.config).toEqual({ configurable: { a: 3 } });
      await expect(store.updateThread(tenant, "t", {}, { config: [] as unknown as Record<string, unknown> })).rejects.toThrow(/Thread config/);
      expect(await store.deleteThread(tenant, "t")).toBe(true);
      expect(await store.deleteThread(tenant, "t")).toBe(false);
      expect(await store.getThread(tenant, "t")).toBeNull();
    });

    it("keeps a thread's TTL; claims it once it ran out, and not again while the claim lasts", async () => {
      const tenant = fresh("tenant");
      const brief = await store.createThread(tenant, { id: "brief", assistantId: "a", ttlMinutes: 0.005 });
      expect(brief.ttlMinutes).toBe(0.005);
      expect(await store.getThread(tenant, "brief")).toEqual(brief);
      expect((await store.createThread(tenant, { id: "lasting", assistantId: "a", ttlMinutes: 10 })).ttlMinutes).toBe(10);
      expect(await store.createThread(tenant, { id: "forever", assistantId: "a" })).not.toHaveProperty("ttlMinutes");
      await sleep(500);
      const claimed = await store.claimExpiredThreads(1000, MINUTE);
      expect(claimedOf(tenant, claimed)).toEqual(["brief"]);
      expect(claimed.find((thread) => thread.tenantId === tenant)).toEqual(brief);
      expect(claimedOf(tenant, await store.claimExpiredThreads(1000, MINUTE))).toEqual([]);
      expect(await store.getThread(tenant, "brief")).toEqual(brief);
    });

    it("hands a claimed thread out again once the claim lapsed (it was not deleted)", async () => {
      const tenant = fresh("tenant");
      await store.createThread(tenant, { id: "kept", assistantId: "a", ttlMinutes: 0.001 });
      await sleep(200);
      expect(claimedOf(tenant, await store.claimExpiredThreads(1000, 100))).toEqual(["kept"]);
      await sleep(300);
      expect(claimedOf(tenant, await store.claimExpiredThreads(1000, MINUTE))).toEqual(["kept"]);
    });

    it("restarts a thread's TTL when it is used (touched, or updated) and an update may change it", async () => {
      const tenant = fresh("tenant");
      for (const id of ["touched", "updated", "retimed", "idle"]) await store.createThread(tenant, { id, assistantId: "a", ttlMinutes: 0.01 });
      await store.createThread(tenant, { id: "forever", assistantId: "a" });
      await sleep(400);
      expect(await store.touchThread(tenant, "touched")).toBe(true);
      expect((await store.updateThread(tenant, "updated", { seen: true }))?.ttlMinutes).toBe(0.01);
      expect((await store.updateThread(tenant, "retimed", {}, { ttlMinutes: 10 }))?.ttlMinutes).toBe(10);
      expect(await store.touchThread(tenant, "forever")).toBe(false);
      expect(await store.touchThread(tenant, "missing")).toBe(false);
      expect(await store.touchThread(fresh("tenant"), "touched")).toBe(false);
      // 800 ms after creation: past the first expiry (600 ms), before the restarted ones (about 1,000 ms).
      await sleep(400);
      expect(claimedOf(tenant, await store.claimExpiredThreads(1000, MINUTE))).toEqual(["idle"]);
      await sleep(500);
      expect(claimedOf(tenant, await store.claimExpiredThreads(1000, MINUTE))).toEqual(["touched", "updated"]);
      expect((await store.updateThread(tenant, "forever", {}, { ttlMinutes: 0.001 }))?.ttlMinutes).toBe(0.001);
      await sleep(200);
      expect(claimedOf(tenant, await store.claimExpiredThreads(1000, MINUTE))).toEqual(["forever"]);
    });

    it("hands each expired thread to one claim only, when claims race from several stores", async () => {
      const tenant = fresh("tenant");
      const expiring = 30;
      await Promise.all(Array.from({ length: expiring }, (_, n) => store.createThread(tenant, { id: `t${n}`, assistantId: "a", ttlMinutes: 0.001 })));
      await store.createThread(tenant, { id: "live", assistantId: "a", ttlMinutes: 10 });
      await sleep(200);
      const claimed: Thread[] = [];
      // Small claims, racing until nothing is left: each round, every store claims at once.
      for (let round = 0; round < 20; round += 1) {
        const batches = await Promise.all(peers.map((peer) => peer.claimExpiredThreads(3, MINUTE)));
        const mine = batches.flat().filter((thread) => thread.tenantId === tenant);
        if (mine.length === 0) break;
        claimed.push(...mine);
      }
      const ids = claimed.map((thread) => thread.id);
      expect(ids).toHaveLength(expiring);
      expect(new Set(ids).size).toBe(expiring);
      expect(ids).not.toContain("live");
    });

    it("keeps metadata exactly at the bounds of free-form JSON", async () => {
      const tenant = fresh("tenant");
      for (const [id, metadata] of [["deep", nestedObject(JSON_DEPTH_BOUND)], ["large", objectOfJsonBytes(JSON_BYTES_BOUND)]] as const) {
        expect((await store.createThread(tenant, { id, assistantId: "a", metadata })).metadata).toEqual(metadata);
      }
      expect((await store.updateThread(tenant, "deep", { more: nestedObject(JSON_DEPTH_BOUND - 1) }))?.metadata.more).toEqual(nestedObject(JSON_DEPTH_BOUND - 1));
    });

    it.each<[string, (store: ThreadStore, tenant: string) => Promise<unknown>]>([
      ["an empty tenant", (s) => s.createThread("", { id: "x", assistantId: "a" })],
      ["a missing assistant", (s, t) => s.createThread(t, { id: "x" } as never)],
      ["an empty id", (s, t) => s.createThread(t, { id: "", assistantId: "a" })],
      ["array metadata", (s, t) => s.createThread(t, { id: "x", assistantId: "a", metadata: [] as never })],
      ["metadata with a NUL", (s, t) => s.createThread(t, { id: "x", assistantId: "a", metadata: { v: "\u0000" } })],
      ["metadata nested 4,100 levels deep", (s, t) => s.createThread(t, { id: "x", assistantId: "a", metadata: nestedObject(4_100) })],
      ["metadata nested one level too deep", (s, t) => s.createThread(t, { id: "x", assistantId: "a", metadata: nestedObject(JSON_DEPTH_BOUND + 1) })],
      ["metadata one byte too large", (s, t) => s.createThread(t, { id: "x", assistantId: "a", metadata: objectOfJsonBytes(JSON_BYTES_BOUND + 1) })],
      ["an update with metadata nested too deep", (s, t) => s.updateThread(t, "x", { more: nestedObject(JSON_DEPTH_BOUND) })],
      ["an update with null metadata", (s, t) => s.updateThread(t, "x", null as never)],
      ["a non-string tenant", (s) => s.getThread(5 as never, "x")],
      ["a TTL of 0 minutes", (s, t) => s.createThread(t, { id: "x", assistantId: "a", ttlMinutes: 0 })],
      ["a negative TTL", (s, t) => s.createThread(t, { id: "x", assistantId: "a", ttlMinutes: -1 })],
      ["a TTL that is no number", (s, t) => s.createThread(t, { id: "x", assistantId: "a", ttlMinutes: "5" as never })],
      ["a TTL beyond a century", (s, t) => s.createThread(t, { id: "x", assistantId: "a", ttlMinutes: 101 * 365 * 24 * 60 })],
      ["an update with a TTL of infinity", (s, t) => s.updateThread(t, "x", {}, { ttlMinutes: Number.POSITIVE_INFINITY })],
      ["a claim of no threads", (s) => s.claimExpiredThreads(0, MINUTE)],
      ["a claim without a duration", (s) => s.claimExpiredThreads(10, 0)],
    ])("refuses %s with a typed error and writes nothing", async (_label, call) => {
      const tenant = fresh("tenant");
      await expect(call(store, tenant)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect(await store.listThreads(tenant, { limit: 10 })).toEqual({ items: [], nextCursor: null });
    });
  });
}
