// The MCP configuration API: CRUD, connect (a real SDK fixture server over stdio), its tools in a
// run, disconnect, a server that cannot be reached, headers and env never shown, bad input refused
// without a write, and another tenant's configurations out of reach.
import { describe, expect, it } from "vitest";
import { MCP_FIXTURE as FIXTURE } from "./mcpFixture";
import { useGateway } from "./support";

const OTHER_TENANT = { "x-tenant-id": "tenant-other" };
// Bounds a connect too: a loaded CI machine took over 5 s to start the stdio server (a Node process loading the MCP SDK).
const calc = { key: "calc", config: { transport: "stdio", command: process.execPath, args: [FIXTURE, "stdio"], timeout: 15_000 }, selected_tools: ["add"] };

describe("MCP configurations", () => {
  const gateway = useGateway();
  const { post, get, del } = gateway;
  const patch = (url: string, payload: unknown) =>
    gateway.app.inject({ method: "PATCH", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
  const keys = async () => (await get("/api/mcp-configs")).json<{ configs: { key: string }[] }>().configs.map((config) => config.key);

  it("creates, reads, lists, changes and deletes a configuration", async () => {
    const created = await post("/api/mcp-configs", { key: "crud", config: { transport: "http", url: "https://mcp.example/mcp" } });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ key: "crud", status: "disconnected", selected_tools: [], config: { transport: "http", url: "https://mcp.example/mcp" } });
    expect((await get("/api/mcp-configs/crud")).json()).toMatchObject({ key: "crud" });
    expect(await keys()).toContain("crud");
    const changed = await patch("/api/mcp-configs/crud", { selected_tools: ["search"] });
    expect(changed.json()).toMatchObject({ selected_tools: ["search"], status: "disconnected" });
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
    const listed = tools.json<{ tools: { name: string; full_name: string; selected: boolean }[] }>().tools;
    // Every tool the server offers, by both names; only `add` is in the config's selected_tools.
    expect(listed.map(({ name, full_name, selected }) => ({ name, full_name, selected }))).toEqual([
      { name: "add", full_name: "calc__add", selected: true },
      { name: "crash", full_name: "calc__crash", selected: false },
      { name: "env", full_name: "calc__env", selected: false },
      { name: "hang", full_name: "calc__hang", selected: false },
    ]);

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
    ["headers on a stdio server", { key: "bad", config: { transport: "stdio", command: "node", headers: { Authorization: "x" } } }],
    ["env on an http server", { key: "bad", config: { transport: "http", url: "http://a", env: { TOKEN: "x" } } }],
    ["a header name that is no HTTP token", { key: "bad", config: { transport: "http", url: "http://a", headers: { "Bad Header": "x" } } }],
    ["a header value with a line break", { key: "bad", config: { transport: "http", url: "http://a", headers: { A: "x\r\nB: y" } } }],
    ["a header the MCP client sets itself", { key: "bad", config: { transport: "http", url: "http://a", headers: { "Content-Type": "text/plain" } } }],
    ["an env name starting with a digit", { key: "bad", config: { transport: "stdio", command: "node", env: { "1TOKEN": "x" } } }],
    ["an empty env value", { key: "bad", config: { transport: "stdio", command: "node", env: { TOKEN: "" } } }],
    ["33 env variables", { key: "bad", config: { transport: "stdio", command: "node", env: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`V${i}`, "x"])) } }],
    ["a status (set by connect and disconnect only)", { key: "bad", config: { transport: "http", url: "http://a" }, status: "connected" }],
  ])("refuses %s with 400 and writes nothing", async (_label, body) => {
    const answer = await post("/api/mcp-configs", body);
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ code: "INVALID_REQUEST" });
    expect(await keys()).not.toContain("bad");
  });

  it("stores headers and env but shows only their names, keeps them when a PATCH omits them, and the child gets the env", async () => {
    const secret = "env-secret-0123456789";
    const config = { ...calc.config, env: { FIXTURE_TOKEN: secret } };
    const created = await post("/api/mcp-configs", { key: "child", config, selected_tools: ["env"] });
    expect(created.statusCode).toBe(201);
    expect(created.json().config).toEqual({ transport: "stdio", command: process.execPath, args: [FIXTURE, "stdio"], timeout: 15_000, env_names: ["FIXTURE_TOKEN"] });
    const remote = await post("/api/mcp-configs", { key: "remote", config: { transport: "http", url: "https://mcp.example/mcp", headers: { Authorization: "Bearer header-secret" } } });
    expect(remote.json().config).toEqual({ transport: "http", url: "https://mcp.example/mcp", header_names: ["Authorization"] });

    const connected = await post("/api/mcp-configs/child/connect", {});
    expect(connected.json()).toMatchObject({ status: "connected", config: { env_names: ["FIXTURE_TOKEN"] } });
    // A change without env keeps it: the reconnected child still has it.
    const changed = await patch("/api/mcp-configs/child", { config: { ...calc.config, timeout: 14_000 } });
    expect(changed.json()).toMatchObject({ status: "connected", config: { timeout: 14_000, env_names: ["FIXTURE_TOKEN"] } });
    expect((await post("/api/assistants", { id: "env-reader", name: "Env", model: { provider: "scripted" }, tools: ["child__env"] })).statusCode).toBe(201);
    expect((await post("/api/threads", { thread_id: "env-thread", assistant_id: "env-reader" })).statusCode).toBe(201);
    const run = await post("/api/runs", { assistant_id: "env-reader", thread_id: "env-thread", message: '/tool child__env {"name":"FIXTURE_TOKEN"}', mode: "wait" });
    expect(run.json().messages.at(-1).content).toBe(`child__env returned: ${secret}`);

    const shown = [
      await get("/api/mcp-configs"),
      await get("/api/mcp-configs/child"),
      await get("/api/mcp-configs/remote"),
      await post("/api/mcp-configs/child/disconnect", {}),
      created,
      remote,
      connected,
      changed,
    ];
    for (const answer of shown) expect(answer.body).not.toMatch(/env-secret|header-secret/);
    expect((await patch("/api/mcp-configs/remote", { config: { transport: "http", url: "https://mcp.example/mcp", headers: {} } })).json().config).toEqual({
      transport: "http",
      url: "https://mcp.example/mcp",
    });
  });

  it("keeps another tenant's configurations out of reach", async () => {
    expect((await post("/api/mcp-configs", { key: "mine", config: { transport: "http", url: "http://127.0.0.1:9/mcp" } })).statusCode).toBe(201);
    expect((await get("/api/mcp-configs/mine", OTHER_TENANT)).statusCode).toBe(404);
    expect((await post("/api/mcp-configs/mine/connect", {}, OTHER_TENANT)).statusCode).toBe(404);
    expect((await post("/api/mcp-configs/mine/disconnect", {}, OTHER_TENANT)).statusCode).toBe(404);
    expect((await get("/api/mcp-configs/mine/tools", OTHER_TENANT)).statusCode).toBe(404);
    expect((await del("/api/mcp-configs/mine", OTHER_TENANT)).statusCode).toBe(404);
    expect((await get("/api/mcp-configs", OTHER_TENANT)).json()).toEqual({ configs: [], next_cursor: null, has_more: false });
    expect((await get("/api/mcp-configs/mine")).json()).toMatchObject({ status: "disconnected" });
  });
});

describe("MCP servers under an operator's policy (AXIOM_UPSTREAM_ALLOW, AXIOM_MCP_STDIO_ALLOW)", () => {
  const gateway = useGateway(
    async () => {},
    () => ({ AXIOM_UPSTREAM_ALLOW: "mcp.example", AXIOM_MCP_STDIO_ALLOW: process.execPath }),
  );
  const { post, get } = gateway;
  const patch = (url: string, payload: unknown) =>
    gateway.app.inject({ method: "PATCH", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
  const refusedWith = async (answer: { statusCode: number; json: () => unknown }, code: string) => {
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ code, error: expect.any(String) });
  };

  it("refuses an http server on a host the allow-list does not name, and a command it does not list, writing nothing", async () => {
    await refusedWith(await post("/api/mcp-configs", { key: "internal", config: { transport: "http", url: "http://169.254.169.254/mcp" } }), "BASE_URL_NOT_ALLOWED");
    await refusedWith(await post("/api/mcp-configs", { key: "shell", config: { transport: "stdio", command: "/bin/sh", args: ["-c", "id"] } }), "MCP_COMMAND_NOT_ALLOWED");
    expect((await get("/api/mcp-configs/internal")).statusCode).toBe(404);
    expect((await get("/api/mcp-configs/shell")).statusCode).toBe(404);

    expect((await post("/api/mcp-configs", { key: "remote", config: { transport: "http", url: "https://mcp.example/mcp" } })).statusCode).toBe(201);
    await refusedWith(await patch("/api/mcp-configs/remote", { config: { transport: "stdio", command: "/bin/sh" } }), "MCP_COMMAND_NOT_ALLOWED");
    expect((await get("/api/mcp-configs/remote")).json()).toMatchObject({ config: { transport: "http", url: "https://mcp.example/mcp" } });
    expect((await post("/api/mcp-configs", calc)).statusCode).toBe(201);
  });

  it("refuses to connect a configuration stored before the policy, and marks it error", async () => {
    // Written behind the API, as a configuration from before AXIOM_MCP_STDIO_ALLOW was set.
    await gateway.context.stores.mcp.create("default", { key: "legacy", config: { transport: "stdio", command: "/bin/sh", args: ["-c", "exit 0"] } });
    await refusedWith(await post("/api/mcp-configs/legacy/connect", {}), "MCP_COMMAND_NOT_ALLOWED");
    expect((await get("/api/mcp-configs/legacy")).json()).toMatchObject({ status: "error" });
  });
});
