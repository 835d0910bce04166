// `lattice-gateway keys:rotate` as a real process on PostgreSQL: secrets a gateway sealed under v1
// are resealed under v2 and still open to the same text; a secret sealed under a key the command
// does not know is reported (exit 4) after every other one is resealed; it refuses to run without a
// database or an encryption key (exit 2).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { SecretKeyring } from "@axiom-lattice/core";
import { Pool } from "@axiom-lattice/pg-stores";
import { type TestDatabase } from "@axiom-lattice/testing";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "./cliProcess";
import { buildTestGateway, createMigratedTestDatabase } from "./support";

/** The summary line keys:rotate prints. */
interface SummaryLine {
  key_version: string;
  kinds: Record<string, { resealed: number; changed_meanwhile: number }>;
  unreadable: Array<{ table: string; tenant_id: string; id: string; field: string }>;
}

const ROOT = resolve(__dirname, "../../..");
const [V1, V2, V3] = [`v1:${randomBytes(32).toString("base64")}`, `v2:${randomBytes(32).toString("base64")}`, `v3:${randomBytes(32).toString("base64")}`];

describe("lattice-gateway keys:rotate", () => {
  let db: TestDatabase;
  let pool: Pool;
  beforeAll(async () => {
    db = await createMigratedTestDatabase();
    pool = new Pool({ connectionString: db.url });
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  const rotate = (env: Record<string, string>, args: string[] = []) =>
    execa("node", [CLI, "keys:rotate", ...args], { env: { LOG_LEVEL: "warn", ...env }, extendEnv: false, reject: false, timeout: 30_000 });
  const sealedValues = async () =>
    (
      await pool.query<{ value: string }>(`
        SELECT api_key_sealed AS value FROM lattice_model_providers
        UNION ALL SELECT model->>'apiKey' FROM lattice_assistants WHERE model ? 'apiKey'
        UNION ALL SELECT model->>'apiKey' FROM lattice_assistant_versions WHERE model ? 'apiKey'
        UNION ALL SELECT value FROM lattice_mcp_server_configs, jsonb_each_text(config->'headers')`)
    ).rows.map((row) => row.value);

  it("reseals every secret under the first key, prints a JSON summary, and the gateway reads them after", async () => {
    const { app, context } = await buildTestGateway({ DATABASE_URL: db.url, LATTICE_ENCRYPTION_KEY: V1 });
    try {
      const post = (url: string, payload: unknown) => app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
      expect((await post("/api/model-providers", { id: "p", kind: "openai", api_key: "sk-rotate-provider" })).statusCode).toBe(201);
      expect((await post("/api/assistants", { id: "a", name: "A", model: { provider: "openai", model: "m", api_key: "sk-rotate-assistant" } })).statusCode).toBe(201);
      const config = { transport: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer rotate" } };
      expect((await post("/api/mcp-configs", { key: "remote", config })).statusCode).toBe(201);
    } finally {
      await app.close();
      await context.close();
    }
    expect((await sealedValues()).map((value) => SecretKeyring.versionOf(value))).toEqual(["v1", "v1", "v1", "v1"]);

    const rotated = await rotate({ DATABASE_URL: db.url, LATTICE_ENCRYPTION_KEY: `${V2},${V1}` });
    expect(rotated.exitCode, rotated.stderr).toBe(0);
    const summary = JSON.parse(rotated.stdout) as SummaryLine;
    expect(summary).toMatchObject({ key_version: "v2", unreadable: [] });
    expect(Object.entries(summary.kinds).map(([kind, count]) => `${kind} ${count.resealed}/${count.changed_meanwhile}`)).toEqual([
      "provider_keys 1/0",
      // The assistant's key, and its version 1's.
      "assistant_keys 2/0",
      "mcp_headers 1/0",
      "mcp_env 0/0",
      "web_app_secrets 0/0",
      "a2a_push_secrets 0/0",
    ]);
    expect((await sealedValues()).map((value) => SecretKeyring.versionOf(value))).toEqual(["v2", "v2", "v2", "v2"]);

    // v1 dropped: a gateway with v2 alone reads every secret.
    const after = await buildTestGateway({ DATABASE_URL: db.url, LATTICE_ENCRYPTION_KEY: V2 });
    try {
      const { stores } = after.context;
      expect((await stores.modelProviders.getProviderCredentials("default", "p"))?.apiKey).toBe("sk-rotate-provider");
      expect((await stores.assistants.getAssistant("default", "a"))?.model.apiKey).toBe("sk-rotate-assistant");
      expect((await stores.mcp.get("default", "remote"))?.config.headers).toEqual({ Authorization: "Bearer rotate" });
    } finally {
      await after.app.close();
      await after.context.close();
    }

    const again = await rotate({ DATABASE_URL: db.url, LATTICE_ENCRYPTION_KEY: `${V2},${V1}` });
    expect(again.exitCode).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ kinds: { provider_keys: { resealed: 0 }, assistant_keys: { resealed: 0 }, mcp_headers: { resealed: 0 } } });
  });

  // Step 2 of the README's "Rotating the encryption key", as written; the reader's placeholders are the one change.
  it("the README's keys:rotate line runs as written and prints its JSON line", async () => {
    const readme = readFileSync(resolve(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("\n## Rotating the encryption key\n"));
    const line = /^LATTICE_ENCRYPTION_KEY=.* keys:rotate$/m.exec(section)?.[0];
    expect(line).toBeDefined();
    const filled = line!
      .replaceAll("<new key>", V2.slice("v2:".length))
      .replaceAll("<current key>", V1.slice("v1:".length))
      .replace("postgres://…", db.url);
    const result = await execa("bash", ["-c", filled], { cwd: ROOT, env: { LOG_LEVEL: "warn" }, reject: false, timeout: 30_000 });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ key_version: "v2", unreadable: [] });
  });

  it("reports a secret sealed under a key it does not know with exit 4, naming the row, after resealing the others", async () => {
    const v3 = SecretKeyring.parse(V3);
    await pool.query(
      `INSERT INTO lattice_model_providers (tenant_id, id, kind, models, api_key_sealed, created_at, updated_at)
       VALUES ('other', 'unknown-key', 'openai', '{}', $1, now(), now())`,
      [v3.seal("sk-sealed-under-v3")],
    );
    await pool.query(
      `INSERT INTO lattice_assistants (tenant_id, id, name, graph, model, tools, created_at, updated_at)
       VALUES ('other', 'legacy', 'L', 'react', '{"provider":"openai","model":"m","apiKey":"sk-plain-legacy"}', '{}', now(), now())`,
    );
    const result = await rotate({ DATABASE_URL: db.url, LATTICE_ENCRYPTION_KEY: V2 });
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain("lattice_model_providers other/unknown-key");
    expect(result.stdout).toContain('version \\"v3\\"');
    expect(JSON.parse(result.stdout)).toMatchObject({ unreadable: [{ table: "lattice_model_providers", tenant_id: "other", id: "unknown-key" }] });
    expect(result.stdout + result.stderr).not.toContain("sk-sealed-under-v3");
    const { rows } = await pool.query<{ key: string }>("SELECT model->>'apiKey' AS key FROM lattice_assistants WHERE tenant_id = 'other'");
    expect(SecretKeyring.versionOf(rows[0].key)).toBe("v2");
  });

  it.each([
    ["without DATABASE_URL", () => ({ LATTICE_ENCRYPTION_KEY: V2 }), "DATABASE_URL"],
    ["without LATTICE_ENCRYPTION_KEY", () => ({ DATABASE_URL: db.url }), "LATTICE_ENCRYPTION_KEY"],
  ])("refuses to run %s (exit 2)", async (_, env, message) => {
    const result = await rotate(env());
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it("refuses (exit 3), resealing nothing, while a live replica lacks the new key; --force reseals anyway", async () => {
    const v3 = SecretKeyring.parse(`${V3},${V2}`);
    await pool.query("DELETE FROM lattice_model_providers WHERE tenant_id = 'other'");
    const behind = await buildTestGateway({ DATABASE_URL: db.url, LATTICE_ENCRYPTION_KEY: V2, AXIOM_REPLICA_ID: "still-on-v2" }, { started: true });
    try {
      const before = await sealedValues();
      const refused = await rotate({ DATABASE_URL: db.url, LATTICE_ENCRYPTION_KEY: `${V3},${V2}` });
      expect(refused.exitCode, refused.stderr).toBe(3);
      expect(refused.stderr).toBe(
        'lattice-gateway: keys:rotate refused: a live replica lacks key version "v3": still-on-v2 (holds v2, dev). ' +
          "Restart it with the new LATTICE_ENCRYPTION_KEY first (GET /api/cluster lists each replica's key_versions), or pass --force",
      );
      expect(refused.stdout).toBe("");
      expect(await sealedValues()).toEqual(before);
      const cluster = (await behind.app.inject({ method: "GET", url: "/api/cluster" })).json<{ replicas: Array<{ replica_id: string; key_versions: string[] }> }>();
      expect(cluster.replicas.find((replica) => replica.replica_id === "still-on-v2")?.key_versions).toEqual(["v2", "dev"]);

      const forced = await rotate({ DATABASE_URL: db.url, LATTICE_ENCRYPTION_KEY: `${V3},${V2}` }, ["--force"]);
      expect(forced.exitCode, forced.stderr).toBe(0);
      expect((await sealedValues()).map((value) => SecretKeyring.versionOf(value))).toEqual(before.map(() => "v3"));
      expect((await sealedValues()).map((value) => v3.open(value)).sort()).toEqual(before.map((value) => v3.open(value)).sort());
    } finally {
      await behind.app.close();
      await behind.context.close();
    }
  });

  it("refuses a stray argument (exit 2) and is shown in --help", async () => {
    expect((await rotate({ DATABASE_URL: db.url, LATTICE_ENCRYPTION_KEY: V2 }, ["--now"])).exitCode).toBe(2);
    const help = await execa("node", [CLI, "--help"], { reject: false, timeout: 10_000 });
    expect(help.stdout).toContain("lattice-gateway keys:rotate");
  });
});
