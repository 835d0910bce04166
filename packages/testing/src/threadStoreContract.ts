import type { ThreadStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { JSON_BYTES_BOUND, JSON_DEPTH_BOUND, nestedObject, objectOfJsonBytes } from "./jsonShapes";

/**
 * The {@link ThreadStore} contract. Every implementation runs this same suite, so their semantics
 * cannot drift. `makeStore` may return the same store for every call.
 */
export function threadStoreContract(name: string, makeStore: () => Promise<ThreadStore>): void {
  describe(`ThreadStore contract: ${name}`, () => {
    let store: ThreadStore;
    beforeAll(async () => {
      store = await makeStore();
    });

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
      expect(await store.listThreads(b)).toEqual([]);
      expect(await store.updateThread(b, "shared", { owner: "b" })).toBeNull();
      expect(await store.deleteThread(b, "shared")).toBe(false);
      await store.createThread(b, { id: "shared", assistantId: "assistant", metadata: { owner: "b" } });
      expect((await store.getThread(a, "shared"))?.metadata).toEqual({ owner: "a" });
      expect((await store.getThread(b, "shared"))?.metadata).toEqual({ owner: "b" });
      expect(await store.deleteThread(a, "shared")).toBe(true);
      expect((await store.getThread(b, "shared"))?.metadata).toEqual({ owner: "b" });
    });

    it("lists a tenant's threads newest first, filtered and paged", async () => {
      const tenant = fresh("tenant");
      for (const [id, assistantId] of [["t1", "a"], ["t2", "b"], ["t3", "a"], ["t4", "a"]]) {
        await store.createThread(tenant, { id, assistantId });
      }
      expect((await store.listThreads(tenant)).map((thread) => thread.id)).toEqual(["t4", "t3", "t2", "t1"]);
      expect((await store.listThreads(tenant, { assistantId: "a" })).map((thread) => thread.id)).toEqual(["t4", "t3", "t1"]);
      expect((await store.listThreads(tenant, { assistantId: "a", limit: 1, offset: 1 })).map((thread) => thread.id)).toEqual(["t3"]);
      expect(await store.listThreads(tenant, { assistantId: "nobody" })).toEqual([]);
    });

    it("lists by metadata containment (as jsonb @> judges it), by ids, and in any order", async () => {
      const tenant = fresh("tenant");
      const threads: Array<[string, Record<string, unknown>]> = [
        ["b", { graph_id: "react", tags: ["x", "y"], owner: { name: "ann", team: "eu" } }],
        ["a", { graph_id: "react", tags: ["y"] }],
        ["c", { graph_id: "other", count: 1 }],
        ["d", {}],
      ];
      for (const [id, metadata] of threads) await store.createThread(tenant, { id, assistantId: "any", metadata });
      const ids = (filter: Parameters<ThreadStore["listThreads"]>[1]) => store.listThreads(tenant, filter).then((found) => found.map((thread) => thread.id));

      expect(await ids({ metadata: { graph_id: "react" } })).toEqual(["a", "b"]);
      expect(await ids({ metadata: { tags: ["y"] } })).toEqual(["a", "b"]);
      expect(await ids({ metadata: { tags: ["x"] } })).toEqual(["b"]);
      expect(await ids({ metadata: { owner: { team: "eu" } } })).toEqual(["b"]);
      expect(await ids({ metadata: { count: 1 } })).toEqual(["c"]);
      expect(await ids({ metadata: { count: "1" } })).toEqual([]);
      expect(await ids({ metadata: { tags: "y" } })).toEqual([]);
      expect(await ids({ metadata: {} })).toEqual(["d", "c", "a", "b"]);
      expect(await ids({ ids: ["c", "a", "missing"] })).toEqual(["c", "a"]);
      expect(await ids({ ids: [] })).toEqual([]);

      expect(await ids({ sortOrder: "asc" })).toEqual(["b", "a", "c", "d"]);
      expect(await ids({ sortBy: "id", sortOrder: "asc" })).toEqual(["a", "b", "c", "d"]);
      expect(await ids({ sortBy: "id", limit: 2, offset: 1 })).toEqual(["c", "b"]);
      await store.updateThread(tenant, "a", { touched: true });
      expect((await ids({ sortBy: "updatedAt" }))[0]).toBe("a");
      expect(await ids({ sortBy: "updatedAt", sortOrder: "asc", metadata: { touched: true } })).toEqual(["a"]);
    });

    it("merges metadata on update and deletes", async () => {
      const tenant = fresh("tenant");
      const created = await store.createThread(tenant, { id: "t", assistantId: "a", metadata: { keep: 1, change: "old" } });
      const updated = await store.updateThread(tenant, "t", { change: "new", added: true });
      expect(updated?.metadata).toEqual({ keep: 1, change: "new", added: true });
      expect(updated!.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());
      expect(await store.getThread(tenant, "t")).toEqual(updated);
      expect(await store.updateThread(tenant, "missing", { a: 1 })).toBeNull();
      expect(await store.deleteThread(tenant, "t")).toBe(true);
      expect(await store.deleteThread(tenant, "t")).toBe(false);
      expect(await store.getThread(tenant, "t")).toBeNull();
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
      ["a non-integer limit", (s, t) => s.listThreads(t, { limit: 2.5 })],
      ["a negative offset", (s, t) => s.listThreads(t, { offset: -1 })],
      ["an unknown sort key", (s, t) => s.listThreads(t, { sortBy: "status" as never })],
      ["an unknown sort order", (s, t) => s.listThreads(t, { sortOrder: "up" as never })],
      ["metadata to match that is no object", (s, t) => s.listThreads(t, { metadata: ["x"] as never })],
      ["ids that are no list", (s, t) => s.listThreads(t, { ids: "a" as never })],
      ["an update with null metadata", (s, t) => s.updateThread(t, "x", null as never)],
      ["a non-string tenant", (s) => s.getThread(5 as never, "x")],
    ])("refuses %s with a typed error and writes nothing", async (_label, call) => {
      const tenant = fresh("tenant");
      await expect(call(store, tenant)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect(await store.listThreads(tenant)).toEqual([]);
    });
  });
}
