import { expect, it } from "vitest";
import { eventually } from "./client";
import type { LanggraphTarget } from "./langgraphConformance";
import { GRAPH, freshTenant, refusal, say, sdkClient } from "./langgraphSdk";

/**
 * The LangGraph store (each tenant's long-term memory) through the SDK's `client.store`: the same
 * cases on every target (behind nginx, each request may reach another replica).
 */
export function langgraphStoreConformance(target: () => LanggraphTarget): void {
  it("store: put, get, search (prefix, filter, words), namespaces, delete", async () => {
    const client = await sdkClient(target().url, freshTenant("store"));
    await client.store.putItem(["users", "u1"], "profile", { name: "Ada", plan: "pro" });
    await client.store.putItem(["users", "u2"], "profile", { name: "Bob", plan: "free" });
    await client.store.putItem(["users", "u2", "notes"], "n1", { text: "Likes green tea" });

    expect(await client.store.getItem(["users", "u1"], "profile")).toMatchObject({ namespace: ["users", "u1"], key: "profile", value: { name: "Ada", plan: "pro" }, createdAt: expect.any(String) });
    expect(await client.store.getItem(["users", "u1"], "missing")).toBeNull();

    const byFilter = await client.store.searchItems(["users"], { filter: { plan: "free" } });
    expect(byFilter.items.map((item) => [item.namespace, item.key])).toEqual([[["users", "u2"], "profile"]]);
    // No embedding index: a query matches words in the items' strings, most recently updated first.
    const byWords = await client.store.searchItems(["users", "u2"], { query: "GREEN tea" });
    expect(byWords.items.map((item) => item.value)).toEqual([{ text: "Likes green tea" }]);
    const page = await client.store.searchItems(["users"], { limit: 1, offset: 1 });
    expect(page.items.map((item) => item.key)).toEqual(["profile"]);
    expect(page.items[0]!.namespace).toEqual(["users", "u2"]);

    expect((await client.store.listNamespaces({ prefix: ["users"], maxDepth: 2 })).namespaces).toEqual([["users", "u1"], ["users", "u2"]]);
    expect((await client.store.listNamespaces({ suffix: ["notes"] })).namespaces).toEqual([["users", "u2", "notes"]]);

    await client.store.deleteItem(["users", "u1"], "profile");
    expect(await client.store.getItem(["users", "u1"], "profile")).toBeNull();
    // Refused at the edge, as the route's schema says (an item's namespace has at least one label).
    expect(await refusal(client.store.putItem([], "k", {}))).toMatchObject({ status: 422, body: { code: "INVALID_REQUEST" } });
  });

  it("store: an item put with a ttl expires, never read again (before any sweep); one without lasts", async () => {
    const client = await sdkClient(target().url, freshTenant("store-ttl"));
    await client.store.putItem(["session"], "brief", { note: "soon gone" }, { ttl: 0.02 });
    await client.store.putItem(["session"], "kept", { note: "stays" });
    // Reads that do not restart the time-to-live, until it has run out (the sweep runs once a minute).
    await eventually(async () => ((await client.store.getItem(["session"], "brief", { refreshTtl: false })) === null ? true : undefined));
    expect((await client.store.searchItems(["session"], { refreshTtl: false })).items.map((item) => item.key)).toEqual(["kept"]);
    expect((await client.store.listNamespaces()).namespaces).toEqual([["session"]]);
  });

  it("store: tenants never see each other's items; a run's memory_read tool reads its own tenant's", async () => {
    const [tenantA, tenantB] = [freshTenant("store-a"), freshTenant("store-b")];
    const [a, b] = await Promise.all([sdkClient(target().url, tenantA), sdkClient(target().url, tenantB)]);
    await a.store.putItem(["users", "u1"], "profile", { name: "Ada" });
    expect(await b.store.getItem(["users", "u1"], "profile")).toBeNull();
    expect((await b.store.searchItems([])).items).toEqual([]);
    expect((await b.store.listNamespaces()).namespaces).toEqual([]);
    await b.store.deleteItem(["users", "u1"], "profile");

    const readProfile = async (client: typeof a) => {
      const { assistant_id } = await client.assistants.create({ graphId: GRAPH, context: { tools: ["memory_read"] } });
      const { thread_id } = await client.threads.create();
      const values = (await client.runs.wait(thread_id, assistant_id, { input: say('/tool memory_read {"namespace":["users","u1"],"key":"profile"}') })) as {
        messages: Array<{ type: string; content: string }>;
      };
      return values.messages.find((message) => message.type === "tool")?.content;
    };
    expect(await readProfile(a)).toBe('{"name":"Ada"}');
    expect(await readProfile(b)).toBe('No item "profile" in namespace ["users","u1"].');
  });
}
