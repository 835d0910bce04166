import { SecretDecryptionError, SecretKeyring } from "@axiom-lattice/core";
import { createTestDatabase, modelProviderStoreContract } from "@axiom-lattice/testing";
import { randomBytes } from "node:crypto";
import { Pool } from "pg";
import { expect, it } from "vitest";
import { PostgreSQLModelProviderStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

const keyring = SecretKeyring.parse(`v1:${randomBytes(32).toString("base64")}`);

modelProviderStoreContract(
  "PostgreSQL",
  storeOnTestDatabase((url) => new PostgreSQLModelProviderStore({ poolConfig: url, keyring }), "lattice_model_providers"),
);

it("stores the key sealed under the current key version, readable only with a keyring that knows it", async () => {
  const database = await createTestDatabase("lattice_model_provider_keys");
  const store = new PostgreSQLModelProviderStore({ poolConfig: database.url, keyring });
  const stranger = new PostgreSQLModelProviderStore({ poolConfig: database.url, keyring: SecretKeyring.parse(`v1:${randomBytes(32).toString("base64")}`) });
  const pool = new Pool({ connectionString: database.url });
  try {
    const tenant = "tenant-keys";
    await store.createProvider(tenant, { id: "p", kind: "openai", apiKey: "sk-at-rest-secret" });
    const { rows } = await pool.query<{ api_key_sealed: string }>("SELECT api_key_sealed FROM lattice_model_providers WHERE tenant_id = $1", [tenant]);
    expect(rows[0].api_key_sealed).toMatch(/^enc:v1:/);
    expect(rows[0].api_key_sealed).not.toContain("sk-at-rest-secret");
    expect((await store.getProviderCredentials(tenant, "p"))?.apiKey).toBe("sk-at-rest-secret");
    await expect(stranger.getProviderCredentials(tenant, "p")).rejects.toBeInstanceOf(SecretDecryptionError);
    // Listing and reading without the key never open it, so they work whatever the keyring.
    expect(await stranger.getProvider(tenant, "p")).toMatchObject({ hasApiKey: true });
  } finally {
    await Promise.all([store.dispose(), stranger.dispose(), pool.end()]);
    await database.drop();
  }
});
