// No secret in the logs: a real gateway process, logging at debug level, is given a model provider
// key, an assistant's own key, MCP headers and env, and made to use them and to fail with them (a
// model API that refuses the key, an MCP server that cannot be reached); an API key is created, used
// and refused once revoked. Nothing it prints holds any of them.
import { randomBytes } from "node:crypto";
import { FakeOpenAi, type TestDatabase, closedPortBaseUrl, eventually } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliGateway, startCli } from "./cliProcess";
import { MCP_FIXTURE } from "./mcpFixture";
import { createMigratedTestDatabase } from "./support";

const SECRETS = {
  providerKey: "sk-log-provider-0123456789",
  assistantKey: "sk-log-assistant-0123456789",
  header: "Bearer log-header-0123456789",
  env: "log-env-0123456789",
};

describe("no secret in the logs", () => {
  const api = new FakeOpenAi();
  let database: TestDatabase;
  let gateway: CliGateway;
  beforeAll(async () => {
    database = await createMigratedTestDatabase();
    gateway = await startCli({
      PATH: process.env.PATH ?? "",
      DATABASE_URL: database.url,
      LOG_LEVEL: "debug",
      PORT: "0",
      LATTICE_ENCRYPTION_KEY: `v1:${randomBytes(32).toString("base64")}`,
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    await api.stop();
    await database?.drop();
  });

  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const run = async (assistantId: string, threadId: string, message: string) => {
    expect((await send("POST", "/api/threads", { thread_id: threadId, assistant_id: assistantId })).status).toBe(201);
    return (await send("POST", "/api/runs", { assistant_id: assistantId, thread_id: threadId, message, mode: "wait" })).body;
  };

  it("prints none of them while using them and failing with them", async () => {
    const baseUrl = await api.start();
    expect((await send("POST", "/api/model-providers", { id: "team", kind: "openai", base_url: baseUrl, models: ["fail-401"], api_key: SECRETS.providerKey })).status).toBe(201);
    expect((await send("POST", "/api/assistants", { id: "refused", name: "Refused", model: { provider: "team" } })).status).toBe(201);
    expect(await run("refused", "t-refused", "hello")).toMatchObject({ status: "error", error: expect.stringMatching(/^UPSTREAM_AUTH_FAILED/) });
    const ownKey = { provider: "openai", model: "fake-model", base_url: baseUrl, api_key: SECRETS.assistantKey };
    expect((await send("POST", "/api/assistants", { id: "own", name: "Own", model: ownKey })).status).toBe(201);
    expect(await run("own", "t-own", "hello")).toMatchObject({ status: "success" });
    expect(api.requests.map((request) => request.authorization)).toEqual([`Bearer ${SECRETS.providerKey}`, `Bearer ${SECRETS.assistantKey}`]);

    const child = { transport: "stdio", command: process.execPath, args: [MCP_FIXTURE, "stdio"], env: { FIXTURE_TOKEN: SECRETS.env } };
    expect((await send("POST", "/api/mcp-configs", { key: "child", config: child, selected_tools: ["env"] })).status).toBe(201);
    expect((await send("POST", "/api/mcp-configs/child/connect")).status).toBe(200);
    const remote = { transport: "http", url: (await closedPortBaseUrl()).replace(/\/v1$/, "/mcp"), timeout: 2000, headers: { Authorization: SECRETS.header } };
    expect((await send("POST", "/api/mcp-configs", { key: "remote", config: remote })).status).toBe(201);
    expect((await send("POST", "/api/mcp-configs/remote/connect")).status).toBe(502);

    // An API key: created, used through both headers, revoked, then refused.
    const created = await send("POST", "/api/api-keys", { name: "logged", scopes: ["read"] });
    expect(created.status).toBe(201);
    const apiKey = String(created.body.key);
    expect((await fetch(`${gateway.url}/api/assistants`, { headers: { "x-api-key": apiKey } })).status).toBe(200);
    expect((await fetch(`${gateway.url}/api/api-keys/${String(created.body.id)}`, { method: "DELETE" })).status).toBe(204);
    expect((await fetch(`${gateway.url}/api/assistants`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(401);

    // The logs cover what happened: the refused run, the MCP server that could not be reached (its
    // request's line is written once the answer is sent).
    await eventually("the connect request's log line", () => gateway.stdout().includes("POST /api/mcp-configs/remote/connect 502"));
    const logs = gateway.stdout();
    expect(logs).toContain("UPSTREAM_AUTH_FAILED");
    for (const [what, secret] of Object.entries({ ...SECRETS, apiKey, apiKeyRandomPart: apiKey.slice(12) })) expect(logs.includes(secret), what).toBe(false);
    // Nor the model API's refusal, which quotes part of the key it refused.
    expect(logs).not.toContain("Incorrect API key provided");
  });
});
