// No secret at rest: after model providers, assistants with their own key and MCP servers with
// headers and env are created and changed through the API, no column of any table in the database
// (text, json, arrays, bytes) contains a secret. Plain-text secrets an older version stored are
// sealed when a gateway starts.
import { columnsContaining } from "@axiom-lattice/testing";
import { Pool } from "@axiom-lattice/pg-stores";
import { describe, expect, it } from "vitest";
import { MCP_FIXTURE } from "./mcpFixture";
import { buildTestGateway, useGateway, useStoreEnv } from "./support";

const KEYS = ["sk-scan-first-0123456789", "sk-scan-second-0123456789", "sk-scan-other-tenant-0123456789"];
const ASSISTANT_KEYS = ["sk-scan-assistant-first-0123456789", "sk-scan-assistant-second-0123456789"];
const MCP_SECRETS = ["Bearer scan-header-0123456789", "Bearer scan-header-changed-0123456789", "scan-env-0123456789"];

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

    for (const secret of [...KEYS, ...ASSISTANT_KEYS, ...MCP_SECRETS]) expect(await columnsContaining(storeEnv().DATABASE_URL, secret), secret).toEqual([]);
    // The scan does look where secrets would be: their rows hold the sealed form, found as such.
    expect(await columnsContaining(storeEnv().DATABASE_URL, "enc:dev:")).toEqual([
      "lattice_assistant_versions.model",
      "lattice_assistants.model",
      "lattice_mcp_server_configs.config",
      "lattice_model_providers.api_key_sealed",
    ]);
    // The runtime reads them opened: the child got its env.
    expect((await gateway.context.stores.mcp.get("default", "child"))?.config.env).toEqual({ SCAN_TOKEN: MCP_SECRETS[2] });
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
