// The MCP configuration API: CRUD, connect (a real SDK fixture server over stdio), its tools in a
// run, disconnect, a server that cannot be reached, bad input refused without a write, and another
// tenant's configurations out of reach.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useGateway } from "./support";

const FIXTURE = fileURLToPath(new URL("./fixtures/mcpFixtureServer.mjs", import.meta.url));
const OTHER_TENANT = { "x-tenant-id": "tenant-other" };
const calc = { key: "calc", config: { transport: "stdio", command: process.execPath, args: [FIXTURE, "stdio"], timeout: 5000 }, selectedTools: ["add"] };

describe("MCP configurations", () => {
  const gateway = useGateway();
  const { post, get, del } = gateway;
  const patch = (url: string, payload: unknown) =>
    gateway.app.inject({ method: "PATCH", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
  const keys = async () => (await get("/api/mcp-configs")).json<{ configs: { key: string }[] }>().configs.map((config) => config.key);

  it("creates, reads, lists, changes and deletes a configuration", async () => {
    const created = await post("/api/mcp-configs", { key: "crud", config: { transport: "http", url: "https://mcp.example/mcp" } });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ key: "crud", status: "disconnected", selectedTools: [], config: { transport: "http", url: "https://mcp.example/mcp" } });
    expect((await get("/api/mcp-configs/crud")).json()).toMatchObject({ key: "crud" });
    expect(await keys()).toContain("crud");
    const changed = await patch("/api/mcp-configs/crud", { selectedTools: ["search"] });
    expect(changed.json()).toMatchObject({ selectedTools: ["search"], status: "disconnected" });
    expect((await post("/api/mcp-configs", { key: "crud", config: { transport: "http", url: "https://x.example" } })).json()).toMatchObject({ code: "ALREADY_EXISTS" });
    expect((await del("/api/mcp-configs/crud")).statusCode).toBe(204);
    expect((await get("/api/mcp-configs/crud")).json()).toMatchObject({ code: "NOT_FOUND" });
  });

  it("connects a server: its selected tools serve the tenant's runs; disconnected, they are gone", async () => {
    expect((await post("/api/mcp-configs", calc)).statusCode).toBe(201);
    const connected = await post("/api/mcp-configs/calc/connect", {});
    expect(connected.statusCode).toBe(200);
    expect(connected.json()).toMatchObject({ status: "connected" });
    const tools = await get("/api/mcp-configs/calc/tools");
    expect(tools.json<{ tools: { name: string }[] }>().tools.map((tool) => tool.name).sort()).toEqual(["add", "crash", "env", "hang"]);

    expect((await post("/api/assistants", { id: "adder", name: "Adder", model: { provider: "scripted" }, tools: ["calc__add"] })).statusCode).toBe(201);
    expect((await post("/api/threads", { thread_id: "t1", assistant_id: "adder" })).statusCode).toBe(201);
    const run = await post("/api/runs", { assistant_id: "adder", thread_id: "t1", message: '/tool calc__add {"a":1,"b":2}', mode: "wait" });
    expect(run.json().messages.at(-1).content).toBe("calc__add returned: 3");

    expect((await post("/api/mcp-configs/calc/disconnect", {})).json()).toMatchObject({ status: "disconnected" });
    expect(gateway.context.mcp.tenantTools("default").size).toBe(0);
    // Checked when written: a disconnected server's tool is unknown again.
    const refused = await post("/api/assistants", { id: "late-adder", name: "Adder", model: { provider: "scripted" }, tools: ["calc__add"] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: "UNKNOWN_TOOL" });
  });

  it("a server that cannot be reached answers 502 MCP_SERVER_UNAVAILABLE and is recorded error", async () => {
    expect((await post("/api/mcp-configs", { key: "nowhere", config: { transport: "http", url: "http://127.0.0.1:9/mcp", timeout: 1000 } })).statusCode).toBe(201);
    const connect = await post("/api/mcp-configs/nowhere/connect", {});
    expect(connect.statusCode).toBe(502);
    expect(connect.json()).toMatchObject({ code: "MCP_SERVER_UNAVAILABLE" });
    expect((await get("/api/mcp-configs/nowhere")).json()).toMatchObject({ status: "error" });
    expect((await get("/api/mcp-configs/nowhere/tools")).statusCode).toBe(502);
  });

  it.each<[string, unknown]>([
    ["an unknown transport", { key: "bad", config: { transport: "sse", url: "http://a" } }],
    ["a file url", { key: "bad", config: { transport: "http", url: "file:///etc/passwd" } }],
    ["a javascript url", { key: "bad", config: { transport: "http", url: "javascript:alert(1)" } }],
    ["a stdio server without a command", { key: "bad", config: { transport: "stdio" } }],
    ["a key with a double underscore", { key: "a__b", config: { transport: "http", url: "http://a" } }],
    ["a zero timeout", { key: "bad", config: { transport: "http", url: "http://a", timeout: 0 } }],
    ["headers (secrets are not stored yet)", { key: "bad", config: { transport: "http", url: "http://a", headers: { authorization: "x" } } }],
    ["a status (set by connect and disconnect only)", { key: "bad", config: { transport: "http", url: "http://a" }, status: "connected" }],
  ])("refuses %s with 400 and writes nothing", async (_label, body) => {
    const answer = await post("/api/mcp-configs", body);
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ code: "INVALID_REQUEST" });
    expect(await keys()).not.toContain("bad");
  });

  it("keeps another tenant's configurations out of reach", async () => {
    expect((await post("/api/mcp-configs", { key: "mine", config: { transport: "http", url: "http://127.0.0.1:9/mcp" } })).statusCode).toBe(201);
    expect((await get("/api/mcp-configs/mine", OTHER_TENANT)).statusCode).toBe(404);
    expect((await post("/api/mcp-configs/mine/connect", {}, OTHER_TENANT)).statusCode).toBe(404);
    expect((await post("/api/mcp-configs/mine/disconnect", {}, OTHER_TENANT)).statusCode).toBe(404);
    expect((await get("/api/mcp-configs/mine/tools", OTHER_TENANT)).statusCode).toBe(404);
    expect((await del("/api/mcp-configs/mine", OTHER_TENANT)).statusCode).toBe(404);
    expect((await get("/api/mcp-configs", OTHER_TENANT)).json()).toEqual({ configs: [] });
    expect((await get("/api/mcp-configs/mine")).json()).toMatchObject({ status: "disconnected" });
  });
});
