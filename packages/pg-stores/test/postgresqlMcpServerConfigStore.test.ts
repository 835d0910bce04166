import { SecretKeyring } from "@axiom-lattice/core";
import { createTestDatabase, eventually, mcpServerConfigStoreContract } from "@axiom-lattice/testing";
import { randomBytes } from "node:crypto";
import { Pool } from "pg";
import { expect, it } from "vitest";
import { PostgreSQLMcpServerConfigStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

const keyring = SecretKeyring.parse(`v1:${randomBytes(32).toString("base64")}`);

mcpServerConfigStoreContract(
  "PostgreSQL",
  storeOnTestDatabase((url) => new PostgreSQLMcpServerConfigStore({ poolConfig: url, keyring }), "lattice_mcp_server_configs"),
);

it("stores every header and env value sealed inside the config, names in clear, and opens them on read", async () => {
  const database = await createTestDatabase("lattice_mcp_secrets");
  const store = new PostgreSQLMcpServerConfigStore({ poolConfig: database.url, keyring });
  const pool = new Pool({ connectionString: database.url });
  try {
    await store.create("t", { key: "remote", config: { transport: "http", url: "https://mcp.example/mcp", headers: { Authorization: "Bearer mcp-header-secret" } } });
    await store.create("t", { key: "child", config: { transport: "stdio", command: "node", env: { API_TOKEN: "mcp-env-secret" } } });
    await store.update("t", "remote", { config: { transport: "http", url: "https://mcp.example/mcp", timeout: 100 } });
    const { rows } = await pool.query<{ key: string; config: { headers?: Record<string, string>; env?: Record<string, string> } }>(
      "SELECT key, config FROM lattice_mcp_server_configs ORDER BY key",
    );
    expect(JSON.stringify(rows)).not.toMatch(/mcp-(header|env)-secret/);
    expect(rows.map((row) => row.config.headers?.Authorization ?? row.config.env?.API_TOKEN)).toEqual([expect.stringMatching(/^enc:v1:/), expect.stringMatching(/^enc:v1:/)]);
    expect((await store.get("t", "remote"))?.config).toEqual({ transport: "http", url: "https://mcp.example/mcp", timeout: 100, headers: { Authorization: "Bearer mcp-header-secret" } });
    expect((await store.listConnected()).length).toBe(0);
    expect((await store.list("t", { limit: 10 })).items.map((entry) => entry.config.env?.API_TOKEN ?? entry.config.headers?.Authorization)).toEqual([
      "Bearer mcp-header-secret",
      "mcp-env-secret",
    ]);
  } finally {
    await Promise.all([store.dispose(), pool.end()]);
    await database.drop();
  }
});

it("keeps headers written by a concurrent update when an update omitting them lands meanwhile", async () => {
  const database = await createTestDatabase("lattice_mcp_secret_race");
  const store = new PostgreSQLMcpServerConfigStore({ poolConfig: database.url, keyring });
  const writer = new Pool({ connectionString: database.url });
  const client = await writer.connect();
  try {
    await store.create("t", { key: "remote", config: { transport: "http", url: "https://a.example/mcp", headers: { Authorization: "Bearer old" } } });
    // Another replica's write of new headers, not committed yet: the omitting update must wait for it.
    await client.query("BEGIN");
    await client.query("UPDATE lattice_mcp_server_configs SET config = jsonb_set(config, '{headers}', $1::jsonb) WHERE key = 'remote'", [
      JSON.stringify({ Authorization: keyring.seal("Bearer new") }),
    ]);
    const omitting = store.update("t", "remote", { config: { transport: "http", url: "https://a.example/mcp", timeout: 100 } });
    await eventually("the update to wait on the row", async () => {
      const { rows } = await writer.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
      return rows.length > 0;
    });
    await client.query("COMMIT");
    expect((await omitting)?.config).toEqual({ transport: "http", url: "https://a.example/mcp", timeout: 100, headers: { Authorization: "Bearer new" } });
  } finally {
    client.release();
    await Promise.all([store.dispose(), writer.end()]);
    await database.drop();
  }
});
