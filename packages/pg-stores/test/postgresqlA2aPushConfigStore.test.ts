import { SecretKeyring } from "@axiom-lattice/core";
import { a2aPushConfigStoreContract, createTestDatabase } from "@axiom-lattice/testing";
import { randomBytes } from "node:crypto";
import { Pool } from "pg";
import { describe, expect, it } from "vitest";
import { PostgreSQLA2aPushConfigStore, resealStoredSecrets } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

a2aPushConfigStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLA2aPushConfigStore({ poolConfig: url }), "lattice_a2a_push_configs"));

describe("PostgreSQLA2aPushConfigStore: secrets at rest", () => {
  it("seals a configuration's token and credentials, and the key rotation reseals them under the new key", async () => {
    const database = await createTestDatabase("lattice_a2a_push_secrets");
    const pool = new Pool({ connectionString: database.url, max: 2 });
    const [v1, v2] = [randomBytes(32).toString("base64"), randomBytes(32).toString("base64")];
    try {
      const old = new PostgreSQLA2aPushConfigStore({ pool, autoMigrate: true, keyring: SecretKeyring.parse(`v1:${v1}`) });
      await old.put({ tenantId: "t", taskId: "task-1", id: "hook", url: "https://hooks.example.com/a", token: "tok-secret", authentication: { scheme: "Bearer", credentials: "cred-secret" }, wireVersion: "1.0" });
      const atRest = async () => (await pool.query<{ token: string; auth_credentials: string }>("SELECT token, auth_credentials FROM lattice_a2a_push_configs")).rows[0];
      expect(Object.values(await atRest()).map((value) => SecretKeyring.versionOf(value))).toEqual(["v1", "v1"]);

      const keyringV2 = SecretKeyring.parse(`v2:${v2},v1:${v1}`);
      const summary = await resealStoredSecrets(pool, { keyring: keyringV2, scope: "all" });
      expect(summary.kinds.a2aPushSecrets).toEqual({ resealed: 2, changedMeanwhile: 0 });
      expect(Object.values(await atRest()).map((value) => SecretKeyring.versionOf(value))).toEqual(["v2", "v2"]);
      const rotated = new PostgreSQLA2aPushConfigStore({ pool, autoMigrate: false, keyring: SecretKeyring.parse(`v2:${v2}`) });
      expect(await rotated.get("t", "task-1", "hook")).toMatchObject({ token: "tok-secret", authentication: { scheme: "Bearer", credentials: "cred-secret" } });
    } finally {
      await pool.end();
      await database.drop();
    }
  });
});
