import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROGRESS_INTERVAL_MS } from "../src/mcpServer/assistantCall";
import { MAX_TOOL_NAME_LENGTH, toolNameOf } from "../src/mcpServer/toolNames";
import { type TestGateway, useGateway, useStoreEnv } from "./support";

// The gateway as an MCP server, driven by the official MCP SDK client over real HTTP, in memory and on
// PostgreSQL. Without authentication the tenant is the x-tenant-id header (scopes and restricted keys
// are in mcpServerAuth.test.ts).

const TENANT = "mcp-tenant";
const OTHER = "mcp-other";

async function connect(url: string, tenant: string): Promise<Client> {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { "x-tenant-id": tenant } } }));
  return client;
}

/** An assistant created through the LangGraph API (which takes a description), as `{ id, name }`. */
const createAssistant = async (gateway: TestGateway, tenant: string, body: { name: string; description?: string }) => {
  const created = await gateway.post("/assistants", { graph_id: "react", context: { model: { provider: "scripted" } }, ...body }, { "x-tenant-id": tenant });
  expect(created.statusCode, created.body).toBe(200);
  const { assistant_id: id, name } = created.json() as { assistant_id: string; name: string };
  return { id, name };
};

const threadCount = async (gateway: TestGateway, tenant: string) => (await gateway.context.stores.threads.listThreads(tenant, { limit: 100 }, {})).items.length;

const rejection = async (pending: Promise<unknown>): Promise<McpError> => {
  const error = await pending.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
};

describe.each(["memory", "postgresql"])("MCP server on %s stores", (stores) => {
  const env = useStoreEnv(stores);
  const gateway = useGateway(async () => {}, env);
  let url = "";
  let client: Client;
  let helper: { id: string; name: string };

  beforeAll(async () => {
    url = await gateway.app.listen({ port: 0, host: "127.0.0.1" });
    helper = await createAssistant(gateway, TENANT, { name: "Helpful echo", description: "Echoes what it is told." });
    client = await connect(url, TENANT);
  });
  afterAll(async () => {
    await client?.close();
  });

  it("lists each assistant as a tool: a stable name within 64 characters, the assistant's description, { message, thread_id? } in", async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((each) => each.title === "Helpful echo")!;
    expect(tool.name).toBe(toolNameOf(helper));
    expect(tool.name).toMatch(new RegExp(`^Helpful_echo_[0-9a-f]{10}$`));
    expect(tool.description).toBe("Echoes what it is told.");
    expect(tool.inputSchema).toMatchObject({ type: "object", required: ["message"], properties: { message: { type: "string" }, thread_id: { type: "string" } } });
    expect(tool.outputSchema).toMatchObject({ type: "object", properties: { answer: { type: "string" }, thread_id: { type: "string" } } });
  });

  it("names every assistant validly, however it is named, and two of one name apart", () => {
    const names = [toolNameOf({ id: "a", name: "Same" }), toolNameOf({ id: "b", name: "Same" }), toolNameOf({ id: "c", name: "日本語 / ü".repeat(30) }), toolNameOf({ id: "d".repeat(128), name: "x".repeat(200) }), toolNameOf({ id: "e", name: "--dashed--" })];
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(new RegExp(`^[A-Za-z0-9_-]{1,${MAX_TOOL_NAME_LENGTH}}$`));
    expect(names[2]).toMatch(/^assistant_[0-9a-f]{10}$/);
    expect(names[4]).toMatch(/^dashed_[0-9a-f]{10}$/);
  });

  it("pages a long list as the store pages it: the cursor of one page gives the next", async () => {
    const tenant = `${TENANT}-many`;
    for (let n = 0; n < 105; n += 1) await gateway.context.stores.assistants.createAssistant(tenant, { name: `Many ${n}`, model: { provider: "scripted" } });
    const many = await connect(url, tenant);
    try {
      const first = await many.listTools();
      expect(first.tools).toHaveLength(100);
      expect(first.nextCursor).toBeDefined();
      const second = await many.listTools({ cursor: first.nextCursor });
      expect(second.nextCursor).toBeUndefined();
      expect(new Set([...first.tools, ...second.tools].map((tool) => tool.title)).size).toBe(105);
      const invalid = await rejection(many.listTools({ cursor: "not-a-cursor" }));
      expect(invalid.code).toBe(ErrorCode.InvalidParams);
    } finally {
      await many.close();
    }
  });

  it("answers a call with the answer's text and the thread, which a second call continues", async () => {
    const name = toolNameOf(helper);
    const first = await client.callTool({ name, arguments: { message: "hello" } });
    expect(first.isError).toBeFalsy();
    expect(first.content).toEqual([{ type: "text", text: "echo: hello" }]);
    const threadId = (first.structuredContent as { thread_id: string }).thread_id;
    expect(first.structuredContent).toEqual({ answer: "echo: hello", thread_id: threadId });

    const second = await client.callTool({ name, arguments: { message: "again", thread_id: threadId } });
    expect(second.structuredContent).toEqual({ answer: "echo: again", thread_id: threadId });
    const state = await gateway.get(`/api/threads/${threadId}/state`, { "x-tenant-id": TENANT });
    expect((state.json() as { messages: { content: string }[] }).messages.map((message) => message.content)).toEqual(["hello", "echo: hello", "again", "echo: again"]);
  });

  it("reports a long run's progress to a client that asks for it, growing", async () => {
    const reported: Progress[] = [];
    const result = await client.callTool({ name: toolNameOf(helper), arguments: { message: "/drip 120 one two three four five six" } }, undefined, {
      onprogress: (progress) => reported.push(progress),
    });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { answer: string }).answer).toContain("six");
    // Six words 120 ms apart, told at most every PROGRESS_INTERVAL_MS.
    expect(PROGRESS_INTERVAL_MS).toBeLessThan(360);
    expect(reported.length).toBeGreaterThanOrEqual(2);
    expect(reported[0].message).toBe("Writing the answer");
    const values = reported.map((each) => each.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
  });

  it("answers a run that failed as the tool's error, with the thread", async () => {
    const result = await client.callTool({ name: toolNameOf(helper), arguments: { message: "/fail on purpose" } });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0].text).toMatch(/ended error: .*on purpose/);
    expect(result.structuredContent).toMatchObject({ thread_id: expect.any(String) });
  });

  it("follows assistants as they are created and deleted, on every request", async () => {
    const fresh = await createAssistant(gateway, TENANT, { name: "Fresh one" });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain(toolNameOf(fresh));
    expect((await client.callTool({ name: toolNameOf(fresh), arguments: { message: "hi" } })).structuredContent).toMatchObject({ answer: "echo: hi" });
    expect((await gateway.del(`/assistants/${fresh.id}`, { "x-tenant-id": TENANT })).statusCode).toBe(204);
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain(toolNameOf(fresh));
    const gone = await rejection(client.callTool({ name: toolNameOf(fresh), arguments: { message: "hi" } }));
    expect(gone.code).toBe(ErrorCode.InvalidParams);
  });

  it("keeps tenants apart: another tenant lists none of these tools and cannot call them, nor continue their threads", async () => {
    const other = await connect(url, OTHER);
    try {
      expect((await other.listTools()).tools).toEqual([]);
      const unknown = await rejection(other.callTool({ name: toolNameOf(helper), arguments: { message: "hi" } }));
      expect(unknown.code).toBe(ErrorCode.InvalidParams);
      expect(unknown.message).toContain("Unknown tool");
      const own = await createAssistant(gateway, OTHER, { name: "Other's" });
      const first = await client.callTool({ name: toolNameOf(helper), arguments: { message: "mine" } });
      const threadId = (first.structuredContent as { thread_id: string }).thread_id;
      const foreign = await rejection(other.callTool({ name: toolNameOf(own), arguments: { message: "hi", thread_id: threadId } }));
      expect(foreign.code).toBe(ErrorCode.InvalidParams);
      expect(foreign.message).toContain(`Thread ${threadId} not found`);
    } finally {
      await other.close();
    }
  });

  it("refuses bad calls as invalid params before storing anything: an unknown tool, wrong argument types, unknown arguments, a thread of another assistant", async () => {
    const before = await threadCount(gateway, TENANT);
    const name = toolNameOf(helper);
    for (const call of [
      { name: "no_such_tool", arguments: { message: "hi" } },
      { name, arguments: { message: 42 } },
      { name, arguments: {} },
      { name, arguments: { message: "" } },
      { name, arguments: { message: "hi", thread_id: "not a valid id!" } },
      { name, arguments: { message: "hi", extra: true } },
    ]) {
      const refused = await rejection(client.callTool(call));
      expect(refused.code, JSON.stringify(call)).toBe(ErrorCode.InvalidParams);
    }
    const someoneElse = await createAssistant(gateway, TENANT, { name: "Someone else" });
    const theirs = await client.callTool({ name: toolNameOf(someoneElse), arguments: { message: "hi" } });
    const before2 = await threadCount(gateway, TENANT);
    const wrongThread = await rejection(client.callTool({ name, arguments: { message: "hi", thread_id: (theirs.structuredContent as { thread_id: string }).thread_id } }));
    expect(wrongThread.code).toBe(ErrorCode.InvalidParams);
    expect(await threadCount(gateway, TENANT)).toBe(before2);
    expect(before2).toBe(before + 1);
  });

  it("answers malformed JSON-RPC, malformed JSON, an oversize body, a missing Accept and GET with a JSON-RPC error or a clear 4xx", async () => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "x-tenant-id": TENANT };
    const post = (body: string, extra: Record<string, string> = {}) => fetch(`${url}/mcp`, { method: "POST", headers: { ...headers, ...extra }, body });

    const notRpc = await post(JSON.stringify({ hello: "world" }));
    expect(notRpc.status).toBe(400);
    expect(await notRpc.json()).toMatchObject({ jsonrpc: "2.0", error: { code: ErrorCode.ParseError }, id: null });

    const badBatch = await post(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tools/list" }, { jsonrpc: "1.0" }]));
    expect(badBatch.status).toBe(400);
    expect(await badBatch.json()).toMatchObject({ jsonrpc: "2.0", error: { code: ErrorCode.ParseError } });

    const notJson = await post("{ not json");
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ code: "INVALID_JSON" });

    const oversize = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: toolNameOf(helper), arguments: { message: "x".repeat(2 * 1024 * 1024) } } }));
    expect(oversize.status).toBe(413);

    const unknownMethod = await post(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "no/such" }));
    expect(unknownMethod.status).toBe(200);
    expect(await unknownMethod.text()).toContain(`"error":{"code":${ErrorCode.MethodNotFound}`);

    const noAccept = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), { accept: "application/json" });
    expect(noAccept.status).toBe(406);

    const stream = await fetch(`${url}/mcp`, { headers: { accept: "text/event-stream", "x-tenant-id": TENANT } });
    expect(stream.status).toBe(405);
    expect(stream.headers.get("allow")).toBe("POST");
  });

  it("aborts the run of a client that leaves mid-call", async () => {
    const leaving = await connect(url, TENANT);
    const patient = await createAssistant(gateway, TENANT, { name: "Patient" });
    const pending = leaving.callTool({ name: toolNameOf(patient), arguments: { message: "/sleep 30000" } }).catch(() => undefined);
    const list = () => gateway.context.stores.threads.listThreads(TENANT, { limit: 10 }, { assistantId: patient.id });
    await expect.poll(async () => (await list()).items.length, { timeout: 5_000 }).toBe(1);
    const [thread] = (await list()).items;
    const runs = async () => (await gateway.get(`/api/threads/${thread.id}/runs`, { "x-tenant-id": TENANT })).json() as { runs: { status: string }[] };
    await expect.poll(async () => (await runs()).runs.map((run) => run.status), { timeout: 5_000 }).toEqual(["running"]);
    await leaving.close();
    await pending;
    await expect.poll(async () => (await runs()).runs.map((run) => run.status), { timeout: 10_000 }).toEqual(["aborted"]);
  });
});

describe("MCP server under the tenant's limits", () => {
  const gateway = useGateway(async () => {}, () => ({ AXIOM_RUN_RATE_LIMIT_PER_MINUTE: "4", AXIOM_TENANT_MAX_STREAMS: "1" }));
  const rpc = (body: unknown) => gateway.post("/mcp", body, { accept: "application/json, text/event-stream", "x-tenant-id": TENANT });

  it("holds tool calls to the tenant's run rate and stream limit, and not listing", async () => {
    const assistant = await createAssistant(gateway, TENANT, { name: "Limited" });
    for (let list = 0; list < 3; list += 1) expect((await rpc({ jsonrpc: "2.0", id: list, method: "tools/list" })).statusCode).toBe(200);
    const call = (id: number) => rpc({ jsonrpc: "2.0", id, method: "tools/call", params: { name: toolNameOf(assistant), arguments: { message: "hi" } } });
    for (const id of [1, 2]) expect((await call(id)).body).toContain("echo: hi");

    // A call holds its response open: one of the tenant's streams, of which it has one here.
    const slow = rpc({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: toolNameOf(assistant), arguments: { message: "/sleep 1000" } } });
    await expect.poll(() => gateway.context.streams.byTenant().get(TENANT) ?? 0).toBe(1);
    const crowded = await call(4);
    expect(crowded.statusCode).toBe(429);
    expect(crowded.json()).toMatchObject({ code: "TOO_MANY_STREAMS" });
    expect((await rpc({ jsonrpc: "2.0", id: 5, method: "tools/list" })).statusCode).toBe(200);
    expect((await slow).body).toContain("echo: /sleep 1000");

    const limited = await call(6);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: "RATE_LIMITED" });
  });
});

describe("MCP server with a bound on the tenant's queued messages", () => {
  const gateway = useGateway(async () => {}, () => ({ AXIOM_TENANT_MAX_QUEUED_MESSAGES: "1" }));

  it("refuses a call beyond it as QUEUE_FULL, counted, leaving no thread behind", async () => {
    const assistant = await createAssistant(gateway, TENANT, { name: "Busy" });
    const client = await connect(await gateway.app.listen({ port: 0, host: "127.0.0.1" }), TENANT);
    try {
      const slow = client.callTool({ name: toolNameOf(assistant), arguments: { message: "/sleep 1000" } });
      await expect.poll(() => threadCount(gateway, TENANT)).toBe(1);
      const refused = await rejection(client.callTool({ name: toolNameOf(assistant), arguments: { message: "hi" } }));
      expect(refused.code).toBe(ErrorCode.InvalidParams);
      expect(refused.data).toEqual({ code: "QUEUE_FULL" });
      expect(await threadCount(gateway, TENANT)).toBe(1);
      const refusals = (await gateway.context.metrics.tenantRefusals.get()).values;
      expect(refusals).toContainEqual(expect.objectContaining({ labels: { tenant: TENANT, reason: "queue_full" }, value: 1 }));
      expect((await slow).structuredContent).toMatchObject({ answer: "echo: /sleep 1000" });
    } finally {
      await client.close();
    }
  });
});
