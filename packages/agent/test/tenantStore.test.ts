import { InMemoryItemStore } from "@axiom-lattice/core";
import { describe, expect, it } from "vitest";
import { TenantStore } from "../src";

// LangGraph's BaseStore over one tenant's items: what a run's nodes and tools get from getStore().
describe("TenantStore", () => {
  it("puts, gets, searches, lists namespaces and deletes the tenant's items, and only its own", async () => {
    const items = new InMemoryItemStore();
    const [mine, theirs] = [new TenantStore(items, "tenant-a"), new TenantStore(items, "tenant-b")];
    await mine.put(["users", "u1"], "profile", { name: "Ada", plan: "pro" });
    await mine.put(["users", "u2"], "profile", { name: "Bob", plan: "free" });
    await items.put("tenant-a", ["users", "u1", "notes"], "n1", { text: "Likes tea" });

    expect(await mine.get(["users", "u1"], "profile")).toMatchObject({ namespace: ["users", "u1"], key: "profile", value: { name: "Ada", plan: "pro" } });
    expect((await mine.search(["users"], { filter: { plan: "free" } })).map((item) => item.key)).toEqual(["profile"]);
    expect((await mine.search(["users"], { query: "tea" })).map((item) => item.namespace)).toEqual([["users", "u1", "notes"]]);
    expect(await mine.listNamespaces({ prefix: ["users"], suffix: ["notes"] })).toEqual([["users", "u1", "notes"]]);
    expect(await mine.listNamespaces({ maxDepth: 1 })).toEqual([["users"]]);

    expect(await theirs.get(["users", "u1"], "profile")).toBeNull();
    expect(await theirs.search([])).toEqual([]);

    await mine.delete(["users", "u1"], "profile");
    expect(await items.get("tenant-a", ["users", "u1"], "profile")).toBeNull();
    // A batch applies its operations in order: a get after a put reads it.
    expect(await mine.batch([{ namespace: ["n"], key: "k", value: { v: 1 } }, { namespace: ["n"], key: "k" }])).toEqual([undefined, expect.objectContaining({ value: { v: 1 } })]);
  });
});
