import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal, Scope } from "../src/auth/principal";
import { issueToken } from "../src/auth/tokenIssuer";
import { toolNameOf } from "../src/mcpServer/toolNames";
import { useGateway } from "./support";

// /mcp with authentication on: a token's scope per method (listing reads, calling writes), API keys,
// and a key restricted to some assistants seeing and calling those alone.

const SECRET = "an-mcp-secret-of-at-least-32-characters";
const TENANT = "mcp-auth";
const token = (scope: Scope) => issueToken({ secret: SECRET, tenantId: TENANT, subject: "mcp-tester", scope, expiresIn: "1h" });

describe("MCP server with authentication on", () => {
  const gateway = useGateway(async () => {}, () => ({ AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET }));
  let url = "";
  const clients: Client[] = [];
  const assistants: { id: string; name: string }[] = [];

  const connect = async (headers: Record<string, string>) => {
    const client = new Client({ name: "mcp-auth-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    url = await gateway.app.listen({ port: 0, host: "127.0.0.1" });
    for (const name of ["Open", "Restricted away"]) {
      assistants.push(await gateway.context.stores.assistants.createAssistant(TENANT, { name, model: { provider: "scripted" } }));
    }
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  it("refuses a request without a valid token with 401 and the bearer challenge, before any JSON-RPC", async () => {
    const response = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm=/);
    await expect(connect({ authorization: "Bearer not-a-token" })).rejects.toThrow();
  });

  it("lets a read token list the tools but not call one (403, nothing run); a write token calls", async () => {
    const reader = await connect({ authorization: `Bearer ${await token("read")}` });
    expect((await reader.listTools()).tools.map((tool) => tool.name).sort()).toEqual(assistants.map(toolNameOf).sort());
    const refused = await reader.callTool({ name: toolNameOf(assistants[0]), arguments: { message: "hi" } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StreamableHTTPError);
    expect((refused as StreamableHTTPError).code).toBe(403);
    expect((await gateway.context.stores.threads.listThreads(TENANT, { limit: 10 }, {})).items).toEqual([]);

    const writer = await connect({ "x-api-key": await token("write") });
    const answered = await writer.callTool({ name: toolNameOf(assistants[0]), arguments: { message: "hi" } });
    expect(answered.structuredContent).toMatchObject({ answer: "echo: hi" });
  });

  it("takes API keys as JWTs are taken, and shows a key restricted to some assistants those alone, calling no other nor their threads", async () => {
    const [open, away] = assistants;
    const admin = { authorization: `Bearer ${await token("admin")}`, "content-type": "application/json" };
    const createKey = async (body: Record<string, unknown>) => {
      const created = await gateway.app.inject({ method: "POST", url: "/api/api-keys", headers: admin, payload: JSON.stringify(body) });
      expect(created.statusCode, created.body).toBe(201);
      return created.json<{ key: string }>().key;
    };
    const whole = await connect({ "x-api-key": await createKey({ name: "whole", scopes: ["write"] }) });
    const awayThread = (await whole.callTool({ name: toolNameOf(away), arguments: { message: "for away" } })).structuredContent as { thread_id: string };

    const restricted = await connect({ authorization: `Bearer ${await createKey({ name: "open only", scopes: ["write"], assistant_ids: [open.id] })}` });
    expect((await restricted.listTools()).tools.map((tool) => tool.name)).toEqual([toolNameOf(open)]);
    expect((await restricted.callTool({ name: toolNameOf(open), arguments: { message: "hi" } })).structuredContent).toMatchObject({ answer: "echo: hi" });
    const refusedTool = await restricted.callTool({ name: toolNameOf(away), arguments: { message: "hi" } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusedTool).toBeInstanceOf(McpError);
    expect((refusedTool as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((refusedTool as McpError).message).toContain("Unknown tool");
    // Not through its own assistant's tool either: the thread of another is as missing.
    const refusedThread = await restricted.callTool({ name: toolNameOf(open), arguments: { message: "hi", thread_id: awayThread.thread_id } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((refusedThread as McpError).message).toContain(`Thread ${awayThread.thread_id} not found`);

    const restrictedAway = { tenantId: TENANT, scope: "write", assistantIds: [] } satisfies Principal;
    expect((await gateway.context.assistantTools.list(restrictedAway)).tools).toEqual([]);
  });
});
