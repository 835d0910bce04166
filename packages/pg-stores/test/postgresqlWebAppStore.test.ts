import { SecretKeyring } from "@axiom-lattice/core";
import { createTestDatabase, webAppStoreContract } from "@axiom-lattice/testing";
import { randomBytes } from "node:crypto";
import { Pool } from "pg";
import { expect, it } from "vitest";
import { PostgreSQLWebAppStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

const keyring = SecretKeyring.parse(`v1:${randomBytes(32).toString("base64")}`);

webAppStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLWebAppStore({ poolConfig: url, keyring }), "lattice_web_apps"));

it("stores every secret sealed under the current key version", async () => {
  const database = await createTestDatabase("lattice_web_app_keys");
  const store = new PostgreSQLWebAppStore({ poolConfig: database.url, keyring });
  const pool = new Pool({ connectionString: database.url });
  try {
    await store.createWebApp("tenant-keys", { id: "app", assistantId: "a", name: "n", previewSecret: "preview-at-rest" });
    await store.rotateSecret("tenant-keys", "app", "signing-at-rest-1", new Date(Date.now() + 60_000));
    await store.rotateSecret("tenant-keys", "app", "signing-at-rest-2", new Date(Date.now() + 60_000));
    const { rows } = await pool.query("SELECT secret_sealed, previous_secret_sealed, preview_secret_sealed FROM lattice_web_apps WHERE id = 'app'");
    for (const value of Object.values(rows[0] as Record<string, string>)) expect(value).toMatch(/^enc:v1:/);
    expect(JSON.stringify(rows)).not.toMatch(/at-rest/);
    expect((await store.getWebAppWithKeys("app"))?.keys).toMatchObject({ secret: "signing-at-rest-2", previous: "signing-at-rest-1", previewSecret: "preview-at-rest" });
  } finally {
    await Promise.all([store.dispose(), pool.end()]);
    await database.drop();
  }
});
