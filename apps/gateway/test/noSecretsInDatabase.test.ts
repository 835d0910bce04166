// No secret at rest: after model providers, assistants with their own key, MCP servers with headers
// and env, A2A push configurations, and API keys are created, changed and used through the API, no
// column of any table in the database (text, json, arrays, bytes) contains a secret, nor does a dump
// of it hold an API key.
// Plain-text secrets an older version stored are sealed when a gateway starts.
import { columnsContaining } from "@axiom-lattice/testing";
import { Pool } from "@axiom-lattice/pg-stores";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { MCP_FIXTURE } from "./mcpFixture";
import { buildTestGateway, useGateway, useStoreEnv } from "./support";

const KEYS = ["sk-scan-first-0123456789", "sk-scan-second-0123456789", "sk-scan-other-tenant-0123456789"];
const ASSISTANT_KEYS = ["sk-scan-assistant-first-0123456789", "sk-scan-assistant-second-0123456789"];
const MCP_SECRETS = ["Bearer scan-header-0123456789", "Bearer scan-header-changed-0123456789", "scan-env-0123456789"];
const PUSH_SECRETS = ["scan-push-token-0123456789", "scan-push-credentials-0123456789"];

describe("no secret in the database", () => {
  const storeEnv = useStoreEnv("postgresql");
  const gateway = useGateway(async () => {}, storeEnv);
  const patch = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    gateway.app.inject({ method: "PATCH", url, headers: { "content-type": "application/json", ...headers }, payload: JSON.stringify(payload) });

  it("finds no model provider key, assistant key, MCP header or env value in any column of any table", async () => {
    const { post } = gateway;
    expect((await post("/api/model-providers", { id: "scan", kind: "openai", base_url: "http://127.0.0.1:9/v1", api_key: KEYS[0] })).statusCode).toBe(201);
    expect((await patch("/api/model-providers/scan", { api_key: KEYS[1] })).statusCode).toBe(200);
    const other = { "x-tenant-id": "tenant-scan" };
    expect((await post("/api/model-providers", { id: "scan", kind: "openai", api_key: KEYS[2] }, other)).statusCode).toBe(201);
    expect((await post("/api/assistants", { id: "scanned", name: "Scanned", model: { provider: "scan" } })).statusCode).toBe(201);
    const ownKey = { provider: "openai", model: "gpt-4o-mini", base_url: "http://127.0.0.1:9/v1" };
    expect((await post("/api/assistants", { id: "own-key", name: "Own key", model: { ...ownKey, api_key: ASSISTANT_KEYS[0] } })).statusCode).toBe(201);
    expect((await patch("/api/assistants/own-key", { model: { ...ownKey, api_key: ASSISTANT_KEYS[1] } })).statusCode).toBe(200);
    const remote = { transport: "http", url: "http://127.0.0.1:9/mcp" };
    expect((await post("/api/mcp-configs", { key: "remote", config: { ...remote, headers: { Authorization: MCP_SECRETS[0] } } })).statusCode).toBe(201);
    expect((await patch("/api/mcp-configs/remote", { config: { ...remote, headers: { Authorization: MCP_SECRETS[1] } } })).statusCode).toBe(200);
    const child = { transport: "stdio", command: process.execPath, args: [MCP_FIXTURE, "stdio"], env: { SCAN_TOKEN: MCP_SECRETS[2] } };
    expect((await post("/api/mcp-configs", { key: "child", config: child })).statusCode).toBe(201);
    // Connected: the status change and its announcement (the outbox) are written too.
    expect((await post("/api/mcp-configs/child/connect", {})).statusCode).toBe(200);

    // An A2A task's push configuration, its token and the receiver's credentials.
    const push = { url: "http://127.0.0.1:9/hook", token: PUSH_SECRETS[0], authentication: { scheme: "Bearer", credentials: PUSH_SECRETS[1] } };
    const message = { messageId: "scan", role: "ROLE_USER", parts: [{ text: "hello" }] };
    const sent = await post("/a2a/scanned", { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message, configuration: { returnImmediately: true, taskPushNotificationConfig: push } } }, { "a2a-version": "1.0" });
    expect(sent.json()).toMatchObject({ result: { task: { id: expect.any(String) } } });

    for (const secret of [...KEYS, ...ASSISTANT_KEYS, ...MCP_SECRETS, ...PUSH_SECRETS]) expect(await columnsContaining(storeEnv().DATABASE_URL, secret), secret).toEqual([]);
    // The scan does look where secrets would be: their rows hold the sealed form, found as such.
    expect(await columnsContaining(storeEnv().DATABASE_URL, "enc:dev:")).toEqual([
      "lattice_a2a_push_configs.auth_credentials",
      "lattice_a2a_push_configs.token",
      "lattice_assistant_versions.model",
      "lattice_assistants.model",
      "lattice_mcp_server_configs.config",
      "lattice_model_providers.api_key_sealed",
    ]);
    // The runtime reads them opened: the child got its env.
    expect((await gateway.context.stores.mcp.get("default", "child"))?.config.env).toEqual({ SCAN_TOKEN: MCP_SECRETS[2] });
  });

  it("keeps no API key, in any column of any table nor anywhere in a dump of the database: only its hash and prefix", async () => {
    const { post } = gateway;
    const created: { id: string; key: string }[] = [];
    for (const [tenant, name] of [["default", "scan-first"], ["default", "scan-revoked"], ["tenant-scan", "scan-other"]]) {
      const answer = await post("/api/api-keys", { name, scopes: ["admin"] }, { "x-tenant-id": tenant });
      expect(answer.statusCode).toBe(201);
      created.push(answer.json());
    }
    // Used (a use is recorded), through both headers, and one revoked: every write a key causes.
    for (const { key } of created) {
      expect((await gateway.get("/api/assistants", { "x-api-key": key })).statusCode).toBe(200);
      expect((await gateway.get("/api/api-keys", { authorization: `Bearer ${key}` })).statusCode).toBe(200);
    }
    expect((await gateway.del(`/api/api-keys/${created[1].id}`)).statusCode).toBe(204);
    await expect.poll(async () => (await gateway.context.stores.apiKeys.getApiKey("default", created[0].id))?.lastUsedAt).toBeDefined();

    const { stdout: dump } = await execa("pg_dump", ["--no-owner", storeEnv().DATABASE_URL]);
    expect(dump).toContain("lattice_api_keys");
    for (const { key } of created) {
      // The random part alone too: the stored prefix shows 8 of its 43 characters, never more.
      for (const needle of [key, key.slice(4), key.slice(12)]) {
        expect(await columnsContaining(storeEnv().DATABASE_URL, needle), needle).toEqual([]);
        expect(dump.includes(needle), needle).toBe(false);
      }
    }
    // The scan looks where a key would be: its row holds the prefix, found as such.
    expect(await columnsContaining(storeEnv().DATABASE_URL, created[0].key.slice(0, 12))).toEqual(["lattice_api_keys.prefix"]);
  });

  it("seals the plain-text secrets an older version stored when a gateway starts", async () => {
    const pool = new Pool({ connectionString: storeEnv().DATABASE_URL });
    try {
      await pool.query(
        `INSERT INTO lattice_assistants (tenant_id, id, name, graph, model, tools, created_at, updated_at)
         VALUES ('default', 'legacy', 'Legacy', 'react', '{"provider":"openai","model":"m","apiKey":"sk-legacy-plain-0123456789"}', '{}', now(), now())`,
      );
      await pool.query(
        `INSERT INTO lattice_mcp_server_configs (tenant_id, key, config, selected_tools, status, created_at, updated_at)
         VALUES ('default', 'legacy', '{"transport":"http","url":"http://127.0.0.1:9/mcp","headers":{"Authorization":"Bearer legacy-plain-0123456789"}}', '{}', 'disconnected', now(), now())`,
      );
      const started = await buildTestGateway(storeEnv());
      try {
        expect(await columnsContaining(storeEnv().DATABASE_URL, "legacy-plain-0123456789")).toEqual([]);
        expect((await started.context.stores.assistants.getAssistant("default", "legacy"))?.model.apiKey).toBe("sk-legacy-plain-0123456789");
        const shown = await started.app.inject({ method: "GET", url: "/api/assistants/legacy" });
        expect(shown.json()).toMatchObject({ model: { api_key: "***" } });
        expect((await started.app.inject({ method: "GET", url: "/api/mcp-configs/legacy" })).json()).toMatchObject({ config: { header_names: ["Authorization"] } });
      } finally {
        await started.app.close();
        await started.context.close();
      }
    } finally {
      await pool.end();
    }
  });
});
