import { eventually } from "@axiom-lattice/testing";
import { Pool } from "@axiom-lattice/pg-stores";
import { describe, expect, it } from "vitest";
import { buildTestGateway, useGateway, useStoreEnv } from "./support";

// The LangGraph API's store (each tenant's long-term memory) through HTTP, every answer checked
// against the OpenAPI document, on both stores; and the same items read by a run's tool through
// LangGraph's getStore(). The SDK-driven cases are e2e/harness/langgraphStoreCases.ts.
describe.each(["memory", "postgresql"])("LangGraph API: the store, on %s stores", (stores) => {
  const gateway = useGateway(async () => {}, useStoreEnv(stores));
  const as = (tenant: string) => ({ "x-tenant-id": `${tenant}-${stores}` });
  const send = (method: "PUT" | "DELETE", url: string, payload: unknown, headers: Record<string, string>) =>
    gateway.app.inject({ method, url, headers: { "content-type": "application/json", ...headers }, payload: JSON.stringify(payload) });
  const getItem = (namespace: string, key: string, headers: Record<string, string>, extra = "") =>
    gateway.get(`/store/items?namespace=${encodeURIComponent(namespace)}&key=${encodeURIComponent(key)}${extra}`, headers);

  it("puts, reads (namespace joined by periods, as the SDK sends it), searches, lists namespaces and deletes", async () => {
    const tenant = as("store-crud");
    expect((await send("PUT", "/store/items", { namespace: ["users", "u1"], key: "profile", value: { name: "Ada", plan: "pro" }, index: false }, tenant)).statusCode).toBe(204);
    expect((await send("PUT", "/store/items", { namespace: ["users", "u2"], key: "profile", value: { name: "Bob", plan: "free" }, ttl: 60 }, tenant)).statusCode).toBe(204);

    const read = await getItem("users.u1", "profile", tenant);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ namespace: ["users", "u1"], key: "profile", value: { name: "Ada", plan: "pro" }, created_at: expect.any(String), updated_at: expect.any(String) });
    expect((await getItem("users.u1", "missing", tenant, "&refresh_ttl=false")).json()).toBeNull();

    const search = await gateway.post("/store/items/search", { namespace_prefix: ["users"], filter: { plan: "pro" }, limit: 10, offset: 0 }, tenant);
    expect(search.json().items.map((item: { key: string; namespace: string[] }) => item.namespace)).toEqual([["users", "u1"]]);
    const byWords = await gateway.post("/store/items/search", { namespace_prefix: ["users"], query: "BOB" }, tenant);
    expect(byWords.json().items.map((item: { value: unknown }) => item.value)).toEqual([{ name: "Bob", plan: "free" }]);

    expect((await gateway.post("/store/namespaces", { prefix: ["users"], max_depth: 2, limit: 100, offset: 0 }, tenant)).json()).toEqual({ namespaces: [["users", "u1"], ["users", "u2"]] });
    expect((await gateway.post("/store/namespaces", { suffix: ["u2"] }, tenant)).json()).toEqual({ namespaces: [["users", "u2"]] });

    expect((await send("DELETE", "/store/items", { namespace: ["users", "u1"], key: "profile" }, tenant)).statusCode).toBe(204);
    expect((await send("DELETE", "/store/items", { namespace: ["users", "u1"], key: "profile" }, tenant)).statusCode).toBe(204);
    expect((await getItem("users.u1", "profile", tenant)).json()).toBeNull();
  });

  it("keeps tenants apart", async () => {
    await send("PUT", "/store/items", { namespace: ["shared"], key: "k", value: { owner: "a" } }, as("store-a"));
    expect((await getItem("shared", "k", as("store-b"))).json()).toBeNull();
    expect((await gateway.post("/store/items/search", { namespace_prefix: [] }, as("store-b"))).json()).toEqual({ items: [] });
    expect((await gateway.post("/store/namespaces", {}, as("store-b"))).json()).toEqual({ namespaces: [] });
    await send("DELETE", "/store/items", { namespace: ["shared"], key: "k" }, as("store-b"));
    expect((await getItem("shared", "k", as("store-a"))).json().value).toEqual({ owner: "a" });
  });

  it.each<[string, () => Promise<{ statusCode: number; json(): unknown }>, string]>([
    ["a label with a period", () => send("PUT", "/store/items", { namespace: ["a.b"], key: "k", value: {} }, as("store-bad")), "INVALID_REQUEST"],
    ["an empty namespace", () => send("PUT", "/store/items", { namespace: [], key: "k", value: {} }, as("store-bad")), "INVALID_REQUEST"],
    ["a value that is no object", () => send("PUT", "/store/items", { namespace: ["n"], key: "k", value: [1] }, as("store-bad")), "INVALID_REQUEST"],
    ["a ttl of 0 minutes", () => send("PUT", "/store/items", { namespace: ["n"], key: "k", value: {}, ttl: 0 }, as("store-bad")), "INVALID_REQUEST"],
    ["a get without a namespace", () => gateway.get("/store/items?key=k", as("store-bad")), "INVALID_STORE_ARGUMENT"],
    ["an unknown filter operator", () => gateway.post("/store/items/search", { namespace_prefix: [], filter: { a: { $regex: "x" } } }, as("store-bad")), "INVALID_STORE_ARGUMENT"],
    ["a max_depth of 0", () => gateway.post("/store/namespaces", { max_depth: 0 }, as("store-bad")), "INVALID_REQUEST"],
  ])("refuses %s with 422 and writes nothing", async (_label, call, code) => {
    const refused = await call();
    expect([refused.statusCode, (refused.json() as { code: string }).code]).toEqual([422, code]);
    expect((await gateway.post("/store/items/search", { namespace_prefix: [] }, as("store-bad"))).json()).toEqual({ items: [] });
  });

  it("a run's tool reads, through LangGraph's getStore(), the item the API wrote, of its own tenant only", async () => {
    const memoryRun = async (tenant: Record<string, string>) => {
      expect((await gateway.post("/assistants", { assistant_id: "reader", graph_id: "react", context: { tools: ["memory_read"] }, if_exists: "do_nothing" }, tenant)).statusCode).toBe(200);
      const thread = (await gateway.post("/threads", {}, tenant)).json<{ thread_id: string }>().thread_id;
      const call = '/tool memory_read {"namespace":["users","u1"],"key":"profile"}';
      const answer = await gateway.post(`/threads/${thread}/runs/wait`, { assistant_id: "reader", input: { messages: [{ role: "user", content: call }] } }, tenant);
      expect(answer.statusCode).toBe(200);
      const messages = answer.json<{ messages: Array<{ type: string; content: string }> }>().messages;
      return messages.find((message) => message.type === "tool")?.content;
    };
    await send("PUT", "/store/items", { namespace: ["users", "u1"], key: "profile", value: { name: "Ada", likes: "tea" } }, as("store-run"));
    expect(await memoryRun(as("store-run"))).toBe('{"name":"Ada","likes":"tea"}');
    expect(await memoryRun(as("store-run-other"))).toBe('No item "profile" in namespace ["users","u1"].');
  });
});

describe("the store's expiry sweep", () => {
  const env = useStoreEnv("postgresql");

  it("runs on the maintenance leader: expired rows leave the table, live ones stay", async () => {
    const { app, context } = await buildTestGateway(env());
    const admin = new Pool({ connectionString: env().DATABASE_URL, max: 1 });
    try {
      const { items } = context.stores;
      await items.put("sweep", ["mem"], "expired", { v: 1 }, { ttlMinutes: 1 });
      await items.put("sweep", ["mem"], "live", { v: 2 }, { ttlMinutes: 1 });
      await admin.query("UPDATE lattice_store_items SET expires_at = now() - interval '1 second' WHERE key = 'expired'");
      // Leading, the maintenance loop runs its tasks at once.
      await context.recover();
      await context.startBackground();
      const keys = async () => (await admin.query<{ key: string }>("SELECT key FROM lattice_store_items ORDER BY key")).rows.map((row) => row.key);
      await eventually("the sweep", async () => (await keys()).length === 1);
      expect(await keys()).toEqual(["live"]);
    } finally {
      await admin.end();
      await app.close();
      await context.close();
    }
  });
});
