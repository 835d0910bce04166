// The plugin catalog API on both store kinds: built-in and MCP entries, switching a tool off and on,
// assistants refused a disabled tool, runs going without it, bad input refused without a write, and
// tenants apart. The catalog's settings are cached: a second read does not reach the store.
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { useGateway, useStoreEnv } from "./support";

const FIXTURE = fileURLToPath(new URL("./fixtures/mcpFixtureServer.mjs", import.meta.url));
const as = (tenant: string) => ({ "x-tenant-id": tenant });

describe.each(["memory", "postgresql"])("plugins on %s stores", (stores) => {
  const storeEnv = useStoreEnv(stores);
  const gateway = useGateway(async () => {}, storeEnv);
  const { post, get } = gateway;
  const patch = (url: string, payload: unknown, headers: Record<string, string>) =>
    gateway.app.inject({ method: "PATCH", url, headers: { "content-type": "application/json", ...headers }, payload: JSON.stringify(payload) });
  const catalog = async (tenant: string) => (await get("/api/plugins", as(tenant))).json<{ plugins: Array<{ name: string; enabled: boolean }> }>().plugins;
  const enabledOf = async (tenant: string, name: string) => (await catalog(tenant)).find((entry) => entry.name === name)?.enabled;

  it("lists the built-in tools, enabled, and a connected MCP server's selected tools", async () => {
    const tenant = "catalog";
    expect(await catalog(tenant)).toEqual([
      { name: "clock", source: "builtin", description: "Returns the current time as an ISO 8601 string.", enabled: true },
      { name: "echo", source: "builtin", description: "Returns the given text unchanged.", enabled: true },
      { name: "memory_read", source: "builtin", description: expect.stringContaining("long-term memory"), enabled: true },
    ]);
    const calc = { key: "calc", config: { transport: "stdio", command: process.execPath, args: [FIXTURE, "stdio"], timeout: 5000 }, selected_tools: ["add"] };
    expect((await post("/api/mcp-configs", calc, as(tenant))).statusCode).toBe(201);
    expect((await post("/api/mcp-configs/calc/connect", {}, as(tenant))).statusCode).toBe(200);
    expect((await catalog(tenant)).at(-1)).toEqual({ name: "calc__add", source: "mcp", server_key: "calc", description: "Adds two numbers.", enabled: true });
    const off = await patch("/api/plugins/calc__add", { enabled: false }, as(tenant));
    expect(off.json()).toEqual({ name: "calc__add", source: "mcp", server_key: "calc", description: "Adds two numbers.", enabled: false });
    expect((await post("/api/assistants", { name: "Adder", tools: ["calc__add"] }, as(tenant))).json()).toMatchObject({ code: "TOOL_DISABLED" });
    // Disconnected, the tool leaves the catalog; its setting stays for when the server comes back.
    expect((await post("/api/mcp-configs/calc/disconnect", {}, as(tenant))).statusCode).toBe(200);
    expect((await catalog(tenant)).map((entry) => entry.name)).toEqual(["clock", "echo", "memory_read"]);
    expect((await patch("/api/plugins/calc__add", { enabled: true }, as(tenant))).statusCode).toBe(404);
    expect((await post("/api/mcp-configs/calc/connect", {}, as(tenant))).statusCode).toBe(200);
    expect(await enabledOf(tenant, "calc__add")).toBe(false);
    await post("/api/mcp-configs/calc/disconnect", {}, as(tenant));
  });

  it("switches echo off: assistants naming it are refused, a run of an older one goes without it; on again, it is back", async () => {
    const tenant = "kill-switch";
    const assistant = { id: "echoer", name: "Echoer", tools: ["echo"] };
    expect((await post("/api/assistants", assistant, as(tenant))).statusCode).toBe(201);
    expect((await post("/api/threads", { thread_id: "t1", assistant_id: "echoer" }, as(tenant))).statusCode).toBe(201);

    const off = await patch("/api/plugins/echo", { enabled: false }, as(tenant));
    expect(off.statusCode).toBe(200);
    expect(off.json()).toEqual({ name: "echo", source: "builtin", description: "Returns the given text unchanged.", enabled: false });
    expect(await enabledOf(tenant, "echo")).toBe(false);

    const refused = await post("/api/assistants", { name: "Another", tools: ["clock", "echo"] }, as(tenant));
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ success: false, code: "TOOL_DISABLED", error: expect.stringContaining('"echo"') });
    expect((await patch("/api/assistants/echoer", { tools: ["echo"] }, as(tenant))).json()).toMatchObject({ code: "TOOL_DISABLED" });
    expect((await post("/api/assistants", { name: "Unknown", tools: ["nope"] }, as(tenant))).json()).toMatchObject({ code: "UNKNOWN_TOOL" });
    expect((await post("/api/assistants", { name: "Clocker", tools: ["clock"] }, as(tenant))).statusCode).toBe(201);

    const message = '/tool echo {"text":"hi"}';
    const run = await post("/api/runs", { assistant_id: "echoer", thread_id: "t1", message, mode: "wait" }, as(tenant));
    expect(run.json()).toMatchObject({ status: "success" });
    expect(run.json().messages.at(-1).content).not.toBe("echo returned: hi");
    expect(run.json().messages.at(-1).content).toMatch(/^echo returned: Error: Tool "echo" not found/);

    expect((await patch("/api/plugins/echo", { enabled: true }, as(tenant))).json()).toMatchObject({ enabled: true });
    const again = await post("/api/runs", { assistant_id: "echoer", thread_id: "t1", message, mode: "wait" }, as(tenant));
    expect(again.json().messages.at(-1).content).toBe("echo returned: hi");
  });

  it("reads a tenant's settings from the store once, again only after a change", async () => {
    const tenant = "cached";
    // A spy that calls through: the real store answers, the test only counts.
    const reads = vi.spyOn(gateway.context.stores.pluginSettings, "list");
    const readsOfTenant = () => reads.mock.calls.filter(([read]) => read === tenant).length;
    try {
      await catalog(tenant);
      await catalog(tenant);
      await post("/api/assistants", { name: "Clocker", tools: ["clock"] }, as(tenant));
      expect(readsOfTenant()).toBe(1);
      // The write drops the cached settings: the answer to the PATCH is read afresh, and kept.
      await patch("/api/plugins/clock", { enabled: false }, as(tenant));
      expect(await enabledOf(tenant, "clock")).toBe(false);
      await catalog(tenant);
      expect(readsOfTenant()).toBe(2);
    } finally {
      reads.mockRestore();
    }
  });

  it.each([
    ["no enabled", {}],
    ["an enabled that is no boolean", { enabled: "no" }],
    ["an unknown field", { enabled: false, scope: "all" }],
  ])("refuses a body with %s with 400 INVALID_REQUEST and writes nothing", async (_what, body) => {
    const tenant = "bad-input";
    const answer = await patch("/api/plugins/echo", body, as(tenant));
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ success: false, code: "INVALID_REQUEST" });
    expect((await gateway.context.stores.pluginSettings.list(tenant, { limit: 100 })).items).toEqual([]);
  });

  it("answers 404 NOT_FOUND for a name not in the catalog, writing nothing", async () => {
    const answer = await patch("/api/plugins/no-such-tool", { enabled: false }, as("missing"));
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toMatchObject({ success: false, code: "NOT_FOUND" });
    expect((await gateway.context.stores.pluginSettings.list("missing", { limit: 100 })).items).toEqual([]);
  });

  it("keeps tenants apart: one switching echo off leaves it on for another", async () => {
    expect((await patch("/api/plugins/echo", { enabled: false }, as("tenant-a"))).statusCode).toBe(200);
    expect(await enabledOf("tenant-a", "echo")).toBe(false);
    expect(await enabledOf("tenant-b", "echo")).toBe(true);
    expect((await post("/api/assistants", { name: "B's", tools: ["echo"] }, as("tenant-b"))).statusCode).toBe(201);
  });
});
