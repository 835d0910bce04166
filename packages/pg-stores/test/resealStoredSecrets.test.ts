// resealStoredSecrets on a real database: values sealed under v1 and plain-text rows inserted by SQL
// end up under v2 opening to the same text; replicas resealing together and a write landing between
// the read and the update lose nothing.
import { SecretKeyring } from "@axiom-lattice/core";
import { type TestDatabase, createTestDatabase, eventually } from "@axiom-lattice/testing";
import { randomBytes } from "node:crypto";
import { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgreSQLAssistantStore, PostgreSQLMcpServerConfigStore, PostgreSQLModelProviderStore, UnreadableSecretsError, resealStoredSecrets } from "../src";

const [v1, v2] = [randomBytes(32).toString("base64"), randomBytes(32).toString("base64")];
const keyringV1 = SecretKeyring.parse(`v1:${v1}`);
/** Knows v1 and, as every keyring does, the development key. */
const keyringV2 = SecretKeyring.parse(`v2:${v2},v1:${v1}`);

/** Every stored secret as (where, value at rest), in a stable order. */
async function storedSecrets(pool: Pool): Promise<Array<[string, string]>> {
  const { rows } = await pool.query<{ at: string; value: string }>(`
    SELECT 'provider ' || tenant_id || '/' || id AS at, api_key_sealed AS value FROM lattice_model_providers WHERE api_key_sealed IS NOT NULL
    UNION ALL
    SELECT 'assistant ' || tenant_id || '/' || id, model->>'apiKey' FROM lattice_assistants WHERE model ? 'apiKey'
    UNION ALL
    SELECT 'assistant version ' || tenant_id || '/' || assistant_id || ' ' || version, model->>'apiKey' FROM lattice_assistant_versions WHERE model ? 'apiKey'
    UNION ALL
    SELECT 'mcp ' || c.tenant_id || '/' || c.key || ' ' || f.name || '.' || e.key, e.value
      FROM lattice_mcp_server_configs c CROSS JOIN (VALUES ('env'), ('headers')) f(name)
     CROSS JOIN LATERAL jsonb_each_text(COALESCE(c.config->f.name, '{}'::jsonb)) e
    ORDER BY 1`);
  return rows.map((row) => [row.at, row.value]);
}

/** The stores of one replica, on their own pool. */
function replica(url: string, keyring: SecretKeyring) {
  const pool = new Pool({ connectionString: url });
  const options = { pool, autoMigrate: true, keyring };
  return {
    pool,
    providers: new PostgreSQLModelProviderStore(options),
    assistants: new PostgreSQLAssistantStore(options),
    mcp: new PostgreSQLMcpServerConfigStore(options),
  };
}

describe("resealStoredSecrets", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase("lattice_reseal");
  });
  afterAll(async () => {
    await database.drop();
  });

  /** Writes every kind of secret under v1, plus legacy plain-text rows by SQL, in two tenants. */
  async function seed(tenants: string[], old: ReturnType<typeof replica>): Promise<Map<string, string>> {
    const plain = new Map<string, string>();
    for (const tenant of tenants) {
      await old.providers.createProvider(tenant, { id: "sealed", kind: "openai", apiKey: `sk-provider-${tenant}` });
      await old.assistants.createAssistant(tenant, { id: "sealed", name: "S", model: { provider: "openai", model: "m", apiKey: `sk-assistant-${tenant}` } });
      await old.mcp.create(tenant, { key: "remote", config: { transport: "http", url: "https://mcp.example/mcp", headers: { Authorization: `Bearer ${tenant}`, "X-Two": "two" } } });
      await old.mcp.create(tenant, { key: "child", config: { transport: "stdio", command: "node", env: { TOKEN: `env-${tenant}` } } });
      // Provider keys were never stored in plain text (a CHECK refuses it); a development-sealed one is their legacy.
      await old.pool.query(
        `INSERT INTO lattice_model_providers (tenant_id, id, kind, models, api_key_sealed, created_at, updated_at)
         VALUES ($1, 'legacy', 'openai', '{}', $2, now(), now())`,
        [tenant, SecretKeyring.development().seal(`sk-legacy-provider-${tenant}`)],
      );
      await old.pool.query(
        `INSERT INTO lattice_assistants (tenant_id, id, name, graph, model, tools, created_at, updated_at)
         VALUES ($1, 'legacy', 'L', 'react', jsonb_build_object('provider', 'openai', 'model', 'm', 'apiKey', $2::text), '{}', now(), now())`,
        [tenant, `sk-legacy-assistant-${tenant}`],
      );
      await old.pool.query(
        `INSERT INTO lattice_mcp_server_configs (tenant_id, key, config, selected_tools, status, created_at, updated_at)
         VALUES ($1, 'legacy', jsonb_build_object('transport', 'http', 'url', 'https://mcp.example/mcp', 'headers', jsonb_build_object('Authorization', $2::text)), '{}', 'disconnected', now(), now())`,
        [tenant, `Bearer legacy-${tenant}`],
      );
    }
    for (const [at, value] of await storedSecrets(old.pool)) plain.set(at, SecretKeyring.isSealed(value) ? keyringV2.open(value) : value);
    return plain;
  }

  async function opened(pool: Pool): Promise<Map<string, string>> {
    return new Map((await storedSecrets(pool)).map(([at, value]) => [at, keyringV2.open(value)]));
  }

  it("moves plain-text, development and v1 values under v2, page by page, opening to the same text; plainText leaves sealed ones alone", async () => {
    const old = replica(database.url, keyringV1);
    const tenants = ["tenant-a", "tenant-b"];
    try {
      const plain = await seed(tenants, old);
      // The assistants the store created have their key in their version 1 too.
      expect(plain.size).toBe(18);

      const startup = await resealStoredSecrets(old.pool, { keyring: keyringV2, scope: "plainText", pageSize: 2 });
      expect(startup.kinds).toEqual({
        providerKeys: { resealed: 0, changedMeanwhile: 0 },
        assistantKeys: { resealed: 2, changedMeanwhile: 0 },
        mcpHeaders: { resealed: 2, changedMeanwhile: 0 },
        mcpEnv: { resealed: 0, changedMeanwhile: 0 },
        webAppSecrets: { resealed: 0, changedMeanwhile: 0 },
        a2aPushSecrets: { resealed: 0, changedMeanwhile: 0 },
      });
      expect((await storedSecrets(old.pool)).filter(([, value]) => !SecretKeyring.isSealed(value))).toEqual([]);
      expect((await storedSecrets(old.pool)).filter(([, value]) => !value.startsWith("enc:v2:"))).toHaveLength(14);

      const rotated = await resealStoredSecrets(old.pool, { keyring: keyringV2, scope: "all", pageSize: 2 });
      expect(rotated).toEqual({
        keyVersion: "v2",
        kinds: {
          providerKeys: { resealed: 4, changedMeanwhile: 0 },
          assistantKeys: { resealed: 4, changedMeanwhile: 0 },
          mcpHeaders: { resealed: 4, changedMeanwhile: 0 },
          mcpEnv: { resealed: 2, changedMeanwhile: 0 },
          webAppSecrets: { resealed: 0, changedMeanwhile: 0 },
          a2aPushSecrets: { resealed: 0, changedMeanwhile: 0 },
        },
        unreadable: [],
      });
      expect((await storedSecrets(old.pool)).every(([, value]) => value.startsWith("enc:v2:"))).toBe(true);
      expect(await opened(old.pool)).toEqual(plain);
      const fresh = replica(database.url, keyringV2);
      try {
        expect((await fresh.providers.getProviderCredentials("tenant-a", "legacy"))?.apiKey).toBe("sk-legacy-provider-tenant-a");
        expect((await fresh.mcp.get("tenant-b", "remote"))?.config.headers).toEqual({ Authorization: "Bearer tenant-b", "X-Two": "two" });
      } finally {
        await fresh.pool.end();
      }

      const again = await resealStoredSecrets(old.pool, { keyring: keyringV2, scope: "all" });
      expect(Object.values(again.kinds).every((count) => count.resealed === 0 && count.changedMeanwhile === 0)).toBe(true);
    } finally {
      await old.pool.query("TRUNCATE lattice_model_providers, lattice_provider_models, lattice_assistant_versions, lattice_assistants, lattice_mcp_server_configs");
      await old.pool.end();
    }
  });

  it("reports a value it cannot open by table and row, never the value, after resealing every other one", async () => {
    const old = replica(database.url, keyringV1);
    try {
      await old.providers.createProvider("t", { id: "p", kind: "openai", apiKey: "sk-only-v1-opens-me" });
      await old.pool.query(
        `INSERT INTO lattice_assistants (tenant_id, id, name, graph, model, tools, created_at, updated_at)
         VALUES ('t', 'legacy', 'L', 'react', '{"provider":"openai","model":"m","apiKey":"sk-plain"}', '{}', now(), now())`,
      );
      const withoutV1 = SecretKeyring.parse(`v3:${randomBytes(32).toString("base64")}`);
      const failure = await resealStoredSecrets(old.pool, { keyring: withoutV1, scope: "all" }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UnreadableSecretsError);
      const { summary, message } = failure as UnreadableSecretsError;
      expect(summary.unreadable).toEqual([{ table: "lattice_model_providers", tenantId: "t", id: "p", field: "", reason: expect.stringContaining('"v1"') }]);
      expect(summary.kinds.assistantKeys.resealed).toBe(1);
      expect(message).toContain("lattice_model_providers t/p");
      expect(JSON.stringify(summary) + message).not.toContain("sk-only-v1-opens-me");
      expect(withoutV1.open((await storedSecrets(old.pool)).find(([at]) => at === "assistant t/legacy")![1])).toBe("sk-plain");
    } finally {
      await old.pool.query("TRUNCATE lattice_model_providers, lattice_provider_models, lattice_assistant_versions, lattice_assistants, lattice_mcp_server_configs");
      await old.pool.end();
    }
  });

  it("loses nothing when two replicas reseal together: each value is resealed once", async () => {
    const [a, b] = [replica(database.url, keyringV2), replica(database.url, keyringV2)];
    const old = replica(database.url, keyringV1);
    try {
      for (let i = 0; i < 40; i += 1) {
        await old.providers.createProvider(`tenant-${i % 3}`, { id: `p${i}`, kind: "openai", apiKey: `sk-${i}` });
        await old.mcp.create(`tenant-${i % 3}`, { key: `m${i}`, config: { transport: "stdio", command: "node", env: { A: `a-${i}`, B: `b-${i}` } } });
      }
      const plain = new Map((await storedSecrets(old.pool)).map(([at, value]) => [at, keyringV1.open(value)]));
      const [first, second] = await Promise.all([
        resealStoredSecrets(a.pool, { keyring: keyringV2, scope: "all", pageSize: 7 }),
        resealStoredSecrets(b.pool, { keyring: keyringV2, scope: "all", pageSize: 7 }),
      ]);
      expect(first.kinds.providerKeys.resealed + second.kinds.providerKeys.resealed).toBe(40);
      expect(first.kinds.mcpEnv.resealed + second.kinds.mcpEnv.resealed).toBe(80);
      expect(await opened(old.pool)).toEqual(plain);
      expect((await storedSecrets(old.pool)).every(([, value]) => value.startsWith("enc:v2:"))).toBe(true);
    } finally {
      await old.pool.query("TRUNCATE lattice_model_providers, lattice_provider_models, lattice_assistant_versions, lattice_assistants, lattice_mcp_server_configs");
      await Promise.all([a.pool.end(), b.pool.end(), old.pool.end()]);
    }
  });

  it.each([
    ["a provider key", "UPDATE lattice_model_providers SET api_key_sealed = $1 WHERE id = 'p'", "providerKeys"],
    ["an MCP header", "UPDATE lattice_mcp_server_configs SET config = jsonb_set(config, '{headers,Authorization}', to_jsonb($1::text)) WHERE key = 'remote'", "mcpHeaders"],
  ] as const)("does not overwrite %s written between its read and its update", async (_, write, kind) => {
    const old = replica(database.url, keyringV1);
    const writer = await old.pool.connect();
    try {
      await old.providers.createProvider("t", { id: "p", kind: "openai", apiKey: "sk-old" });
      await old.mcp.create("t", { key: "remote", config: { transport: "http", url: "https://mcp.example/mcp", headers: { Authorization: "Bearer old" } } });
      // A write in flight: the reseal reads the committed old value, then its update waits on the row lock.
      await writer.query("BEGIN");
      await writer.query(write, [keyringV2.seal("written meanwhile")]);
      const resealing = resealStoredSecrets(old.pool, { keyring: keyringV2, scope: "all" });
      await eventually("the reseal to wait on the written row", async () => {
        const { rows } = await old.pool.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
        return rows.length > 0;
      });
      await writer.query("COMMIT");
      const summary = await resealing;
      expect(summary.kinds[kind]).toEqual({ resealed: 0, changedMeanwhile: 1 });
      const values = new Map((await storedSecrets(old.pool)).map(([at, value]) => [at, keyringV2.open(value)]));
      expect(values).toEqual(
        new Map([
          ["mcp t/remote headers.Authorization", kind === "mcpHeaders" ? "written meanwhile" : "Bearer old"],
          ["provider t/p", kind === "providerKeys" ? "written meanwhile" : "sk-old"],
        ]),
      );
    } finally {
      writer.release();
      await old.pool.query("TRUNCATE lattice_model_providers, lattice_provider_models, lattice_assistant_versions, lattice_assistants, lattice_mcp_server_configs");
      await old.pool.end();
    }
  });
});
