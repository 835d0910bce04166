import { SecretKeyring } from "@axiom-lattice/core";
import { createTestDatabase, webAppStoreContract } from "@axiom-lattice/testing";
import { randomBytes } from "node:crypto";
import { Pool } from "pg";
import { expect, it } from "vitest";
import { PostgreSQLWebAppStore, resealStoredSecrets } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

const keyringV1Key = randomBytes(32).toString("base64");
const keyringV1 = SecretKeyring.parse(`v1:${keyringV1Key}`);

webAppStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLWebAppStore({ poolConfig: url, keyring: keyringV1 }), "lattice_web_apps"));

it("stores every secret sealed under the current key version", async () => {
  const database = await createTestDatabase("lattice_web_app_keys");
  const store = new PostgreSQLWebAppStore({ poolConfig: database.url, keyring: keyringV1 });
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

it("moves every web app secret under a new key with resealStoredSecrets, each still opening to the same text", async () => {
  const database = await createTestDatabase("lattice_web_app_reseal");
  const keyringV2 = SecretKeyring.parse(`v2:${randomBytes(32).toString("base64")},v1:${keyringV1Key}`);
  const old = new PostgreSQLWebAppStore({ poolConfig: database.url, keyring: keyringV1 });
  const rotated = new PostgreSQLWebAppStore({ poolConfig: database.url, keyring: keyringV2 });
  const pool = new Pool({ connectionString: database.url });
  try {
    await old.createWebApp("tenant-reseal", { id: "app", assistantId: "a", name: "n", previewSecret: "preview-1" });
    await old.rotateSecret("tenant-reseal", "app", "signing-1", new Date(Date.now() + 60_000));
    await old.rotateSecret("tenant-reseal", "app", "signing-2", new Date(Date.now() + 60_000));
    const summary = await resealStoredSecrets(pool, { keyring: keyringV2, scope: "all", pageSize: 2 });
    expect(summary.kinds.webAppSecrets).toEqual({ resealed: 3, changedMeanwhile: 0 });
    const { rows } = await pool.query("SELECT secret_sealed, previous_secret_sealed, preview_secret_sealed FROM lattice_web_apps WHERE id = 'app'");
    for (const value of Object.values(rows[0] as Record<string, string>)) expect(value).toMatch(/^enc:v2:/);
    expect((await rotated.getWebAppWithKeys("app"))?.keys).toMatchObject({ secret: "signing-2", previous: "signing-1", previewSecret: "preview-1" });
  } finally {
    await Promise.all([old.dispose(), rotated.dispose(), pool.end()]);
    await database.drop();
  }
});
