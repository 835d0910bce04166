import type { ItemStore, StoredItem } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";

export interface ItemStoreHarness {
  /**
   * `count` stores over one empty store (called once per suite): on PostgreSQL each on a pool of its
   * own, as replicas have; in memory the same store may be returned each time.
   */
  makeStores(count: number): Promise<ItemStore[]>;
  /** Moves time `ms` forward for every item already stored (their expiries come closer). */
  age(ms: number): Promise<void>;
}

const MINUTE = 60_000;
const RACERS = 4;

const addresses = (items: StoredItem[]) => items.map((item) => [...item.namespace, item.key].join("/"));

/**
 * The {@link ItemStore} contract (LangGraph's store, each tenant's long-term memory). Every
 * implementation runs this same suite, so their semantics cannot drift. Tests use tenants of their own.
 */
export function itemStoreContract(name: string, harness: ItemStoreHarness): void {
  describe(`ItemStore contract: ${name}`, () => {
    let stores: ItemStore[];
    let store: ItemStore;
    beforeAll(async () => {
      stores = await harness.makeStores(RACERS);
      store = stores[0]!;
    });

    it("puts, reads, replaces (keeping createdAt) and deletes an item", async () => {
      const tenant = fresh("tenant");
      expect(await store.get(tenant, ["users", "u1"], "profile")).toBeNull();
      const first = await store.put(tenant, ["users", "u1"], "profile", { name: "Ada", tags: ["x"], nested: { deep: 1 } });
      expect(first).toEqual({ namespace: ["users", "u1"], key: "profile", value: { name: "Ada", tags: ["x"], nested: { deep: 1 } }, createdAt: expect.any(Date), updatedAt: expect.any(Date) });
      expect(await store.get(tenant, ["users", "u1"], "profile")).toEqual(first);
      const second = await store.put(tenant, ["users", "u1"], "profile", { name: "Grace" });
      expect(second.value).toEqual({ name: "Grace" });
      expect(second.createdAt).toEqual(first.createdAt);
      expect(second.updatedAt.getTime()).toBeGreaterThan(first.updatedAt.getTime());
      expect(await store.get(tenant, ["users", "u1"], "profile")).toEqual(second);
      expect(await store.get(tenant, ["users"], "profile")).toBeNull();
      expect(await store.delete(tenant, ["users", "u1"], "profile")).toBe(true);
      expect(await store.delete(tenant, ["users", "u1"], "profile")).toBe(false);
      expect(await store.get(tenant, ["users", "u1"], "profile")).toBeNull();
    });

    it("searches by namespace prefix (whole labels), newest update first, paged", async () => {
      const tenant = fresh("tenant");
      for (const [namespace, key] of [[["a"], "1"], [["a", "b"], "2"], [["a", "b", "c"], "3"], [["ab"], "4"], [["b", "a"], "5"]] as const) {
        await store.put(tenant, [...namespace], key, { key });
      }
      expect(addresses(await store.search(tenant, { namespacePrefix: ["a"] }))).toEqual(["a/b/c/3", "a/b/2", "a/1"]);
      expect(addresses(await store.search(tenant, { namespacePrefix: ["a", "b"] }))).toEqual(["a/b/c/3", "a/b/2"]);
      expect(addresses(await store.search(tenant, { namespacePrefix: ["a", "b", "c", "d"] }))).toEqual([]);
      expect(addresses(await store.search(tenant, { namespacePrefix: [] }))).toEqual(["b/a/5", "ab/4", "a/b/c/3", "a/b/2", "a/1"]);
      expect(addresses(await store.search(tenant, { namespacePrefix: [], limit: 2, offset: 1 }))).toEqual(["ab/4", "a/b/c/3"]);
      await store.put(tenant, ["a"], "1", { key: "1", again: true });
      expect(addresses(await store.search(tenant, { namespacePrefix: ["a"], limit: 1 }))).toEqual(["a/1"]);
    });

    it("filters on value fields: JSON equality, $eq/$ne, and $gt/$gte/$lt/$lte on numbers", async () => {
      const tenant = fresh("tenant");
      await store.put(tenant, ["docs"], "d1", { kind: "note", size: 5, meta: { a: 1, b: [1, 2] }, flag: null });
      await store.put(tenant, ["docs"], "d2", { kind: "note", size: 12 });
      await store.put(tenant, ["docs"], "d3", { kind: "task", size: "7" });
      const keys = async (filter: Record<string, unknown>) => (await store.search(tenant, { namespacePrefix: ["docs"], filter })).map((item) => item.key).sort();
      expect(await keys({ kind: "note" })).toEqual(["d1", "d2"]);
      expect(await keys({ kind: "note", size: 12 })).toEqual(["d2"]);
      expect(await keys({ meta: { b: [1, 2], a: 1 } })).toEqual(["d1"]);
      expect(await keys({ meta: { a: 1 } })).toEqual([]);
      expect(await keys({ flag: null })).toEqual(["d1"]);
      expect(await keys({ kind: { $eq: "task" } })).toEqual(["d3"]);
      expect(await keys({ meta: { $ne: { a: 1, b: [1, 2] } } })).toEqual(["d2", "d3"]);
      expect(await keys({ size: { $gt: 5 } })).toEqual(["d2"]);
      expect(await keys({ size: { $gte: 5, $lt: 12 } })).toEqual(["d1"]);
      expect(await keys({ size: { $lte: 100 } })).toEqual(["d1", "d2"]);
      expect(await keys({ missing: "x" })).toEqual([]);
    });

    it("matches a query's words in the value's strings, ASCII case aside (no embedding index)", async () => {
      const tenant = fresh("tenant");
      await store.put(tenant, ["notes"], "n1", { text: "Prefers DARK mode", tags: ["Editor", { label: "vim user" }] });
      await store.put(tenant, ["notes"], "n2", { text: "likes tea", dark: 1 });
      const keys = async (query: string) => (await store.search(tenant, { namespacePrefix: ["notes"], query })).map((item) => item.key);
      expect(await keys("dark")).toEqual(["n1"]);
      expect(await keys("mode  Vim")).toEqual(["n1"]);
      expect(await keys("editor tea")).toEqual([]);
      expect(await keys("TEA")).toEqual(["n2"]);
      expect(await keys("   ")).toEqual(["n2", "n1"]);
    });

    it("lists namespaces by prefix and suffix (`*` any label), cut to a depth, in order, paged", async () => {
      const tenant = fresh("tenant");
      for (const namespace of [["users", "u2", "prefs"], ["users", "u1", "prefs"], ["users", "u1", "notes"], ["teams", "t1", "prefs"], ["users"]]) {
        await store.put(tenant, namespace, "k", {});
      }
      await store.put(tenant, ["users", "u1", "prefs"], "other", {});
      expect(await store.listNamespaces(tenant)).toEqual([["teams", "t1", "prefs"], ["users"], ["users", "u1", "notes"], ["users", "u1", "prefs"], ["users", "u2", "prefs"]]);
      expect(await store.listNamespaces(tenant, { prefix: ["users", "u1"] })).toEqual([["users", "u1", "notes"], ["users", "u1", "prefs"]]);
      expect(await store.listNamespaces(tenant, { suffix: ["prefs"] })).toEqual([["teams", "t1", "prefs"], ["users", "u1", "prefs"], ["users", "u2", "prefs"]]);
      expect(await store.listNamespaces(tenant, { prefix: ["users", "*"], suffix: ["prefs"] })).toEqual([["users", "u1", "prefs"], ["users", "u2", "prefs"]]);
      expect(await store.listNamespaces(tenant, { maxDepth: 2 })).toEqual([["teams", "t1"], ["users"], ["users", "u1"], ["users", "u2"]]);
      expect(await store.listNamespaces(tenant, { maxDepth: 1, limit: 1, offset: 1 })).toEqual([["users"]]);
    });

    it("never reads an expired item, before any sweep: not by get, search, list or delete; a put makes it anew", async () => {
      const tenant = fresh("tenant");
      const lasting = await store.put(tenant, ["mem"], "lasting", { text: "kept" });
      const old = await store.put(tenant, ["mem"], "brief", { text: "gone" }, { ttlMinutes: 1 });
      await store.put(tenant, ["gone"], "brief", { text: "gone" }, { ttlMinutes: 1 });
      await harness.age(MINUTE + 1_000);
      expect(await store.get(tenant, ["mem"], "brief")).toBeNull();
      expect(addresses(await store.search(tenant, { namespacePrefix: [] }))).toEqual(["mem/lasting"]);
      expect(await store.listNamespaces(tenant)).toEqual([["mem"]]);
      expect((await store.get(tenant, ["mem"], "lasting"))?.value).toEqual(lasting.value);
      expect(await store.delete(tenant, ["gone"], "brief")).toBe(false);
      const anew = await store.put(tenant, ["mem"], "brief", { text: "back" });
      expect(anew.createdAt.getTime()).toBeGreaterThan(old.createdAt.getTime());
      // Put without a ttl, it lives for ever now.
      await harness.age(10 * MINUTE);
      expect((await store.get(tenant, ["mem"], "brief"))?.value).toEqual({ text: "back" });
    });

    it("restarts an item's time-to-live when a get or search reads it, unless told not to", async () => {
      const tenant = fresh("tenant");
      for (const key of ["got", "searched", "unrefreshed"]) await store.put(tenant, [key], key, { key }, { ttlMinutes: 1 });
      await harness.age(40_000);
      expect(await store.get(tenant, ["got"], "got")).not.toBeNull();
      expect(await store.search(tenant, { namespacePrefix: ["searched"] })).toHaveLength(1);
      expect(await store.get(tenant, ["unrefreshed"], "unrefreshed", { refreshTtl: false })).not.toBeNull();
      expect(await store.search(tenant, { namespacePrefix: ["unrefreshed"], refreshTtl: false })).toHaveLength(1);
      await harness.age(40_000);
      expect(await store.get(tenant, ["got"], "got", { refreshTtl: false })).not.toBeNull();
      expect(await store.get(tenant, ["searched"], "searched", { refreshTtl: false })).not.toBeNull();
      expect(await store.get(tenant, ["unrefreshed"], "unrefreshed")).toBeNull();
    });

    it("sweeps expired items once: sweeps racing from several stores remove each one, counted once, and nothing live", async () => {
      // Earlier tests' items with a time-to-live expire and go first: what is counted below is this test's.
      await harness.age(60 * MINUTE);
      await Promise.all(stores.map((each) => each.deleteExpired()));
      const tenant = fresh("tenant");
      const expiring = 30;
      await Promise.all(Array.from({ length: expiring }, (_, i) => store.put(tenant, ["sweep", String(i % 3)], `k${i}`, { i }, { ttlMinutes: 1 })));
      await store.put(tenant, ["sweep"], "live", { live: true }, { ttlMinutes: 5 });
      await store.put(tenant, ["sweep"], "forever", { live: true });
      await harness.age(2 * MINUTE);
      const removed = await Promise.all(stores.map((each) => each.deleteExpired()));
      expect(removed.reduce((sum, count) => sum + count, 0)).toBe(expiring);
      expect(await store.deleteExpired()).toBe(0);
      expect(addresses(await store.search(tenant, { namespacePrefix: ["sweep"] })).sort()).toEqual(["sweep/forever", "sweep/live"]);
    });

    it("concurrent puts of one key from several stores: one item, created once, the last write's whole", async () => {
      const tenant = fresh("tenant");
      for (let round = 0; round < 10; round += 1) {
        const key = `race-${round}`;
        const written = await Promise.all(
          stores.flatMap((each, racer) => [0, 1].map((write) => each.put(tenant, ["race"], key, { racer, write, round }, { ttlMinutes: racer % 2 === 0 ? 5 : null }))),
        );
        expect(new Set(written.map((item) => item.createdAt.getTime())).size, `round ${round}`).toBe(1);
        const stored = await store.get(tenant, ["race"], key, { refreshTtl: false });
        expect(written).toContainEqual(stored);
        expect(addresses(await store.search(tenant, { namespacePrefix: ["race"], filter: { round } }))).toEqual([`race/${key}`]);
        const last = await stores[round % RACERS]!.put(tenant, ["race"], key, { last: round });
        expect(await store.get(tenant, ["race"], key)).toEqual(last);
      }
    });

    it("isolates tenants", async () => {
      const [a, b] = [fresh("tenant"), fresh("tenant")];
      await store.put(a, ["shared"], "k", { owner: "a" });
      expect(await store.get(b, ["shared"], "k")).toBeNull();
      expect(await store.search(b, { namespacePrefix: [] })).toEqual([]);
      expect(await store.listNamespaces(b)).toEqual([]);
      expect(await store.delete(b, ["shared"], "k")).toBe(false);
      await store.put(b, ["shared"], "k", { owner: "b" });
      expect((await store.get(a, ["shared"], "k"))?.value).toEqual({ owner: "a" });
      expect((await store.search(a, { namespacePrefix: ["shared"] })).map((item) => item.value)).toEqual([{ owner: "a" }]);
    });

    it.each<[string, (store: ItemStore, tenant: string) => Promise<unknown>]>([
      ["an empty tenant", (s) => s.put("", ["n"], "k", {})],
      ["an empty namespace", (s, t) => s.put(t, [], "k", {})],
      ["a label with a period", (s, t) => s.put(t, ["a.b"], "k", {})],
      ["an empty label", (s, t) => s.put(t, ["a", ""], "k", {})],
      ["an empty key", (s, t) => s.put(t, ["n"], "", {})],
      ["a key with NUL", (s, t) => s.put(t, ["n"], "k\u0000", {})],
      ["an address over 1,024 bytes", (s, t) => s.put(t, ["n"], "k".repeat(1_024), {})],
      ["a value that is no object", (s, t) => s.put(t, ["n"], "k", [1] as never)],
      ["a ttl of 0", (s, t) => s.put(t, ["n"], "k", {}, { ttlMinutes: 0 })],
      ["an unknown filter operator", (s, t) => s.search(t, { namespacePrefix: [], filter: { a: { $regex: "x" } } })],
      ["a comparison with no number", (s, t) => s.search(t, { namespacePrefix: [], filter: { a: { $gt: "5" } } })],
      ["a limit of 0", (s, t) => s.search(t, { namespacePrefix: [], limit: 0 })],
      ["a max depth of 0", (s, t) => s.listNamespaces(t, { maxDepth: 0 })],
    ])("refuses %s with a typed error and writes nothing", async (_label, call) => {
      const tenant = fresh("tenant");
      await expect(call(store, tenant)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect(await store.search(tenant, { namespacePrefix: [] })).toEqual([]);
    });
  });
}
