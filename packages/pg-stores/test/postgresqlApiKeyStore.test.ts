import { apiKeyStoreContract, createTestDatabase } from "@axiom-lattice/testing";
import { createHash } from "node:crypto";
import { Pool } from "pg";
import { expect, it } from "vitest";
import { PostgreSQLApiKeyStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

apiKeyStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLApiKeyStore({ poolConfig: url }), "lattice_api_keys"));

it("finds a presented key by its hash with one probe of the unique index, never a scan", async () => {
  const database = await createTestDatabase("lattice_api_key_plan");
  const store = new PostgreSQLApiKeyStore({ poolConfig: database.url });
  const pool = new Pool({ connectionString: database.url, max: 1 });
  try {
    await store.initialize();
    const client = await pool.connect();
    try {
      // Even on a table the planner would rather scan (a few rows), the scan must not be the only way.
      await client.query("SET enable_seqscan = off");
      const hash = createHash("sha256").update("probe").digest("hex");
      const { rows } = await client.query(`EXPLAIN (FORMAT JSON) SELECT id FROM lattice_api_keys WHERE secret_hash = $1`, [hash]);
      expect(JSON.stringify(rows[0])).toMatch(/"Index Name":"lattice_api_keys_secret_hash_key"/);
    } finally {
      client.release();
    }
  } finally {
    await Promise.all([store.dispose(), pool.end()]);
    await database.drop();
  }
});
