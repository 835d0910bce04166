import { SecretKeyring } from "@axiom-lattice/core";
import { assistantStoreContract, createTestDatabase } from "@axiom-lattice/testing";
import { randomBytes } from "node:crypto";
import { Pool } from "pg";
import { expect, it } from "vitest";
import { PostgreSQLAssistantStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

const keyring = SecretKeyring.parse(`v1:${randomBytes(32).toString("base64")}`);

assistantStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLAssistantStore({ poolConfig: url, keyring }), "lattice_assistants"));

it("stores model.apiKey sealed on create and update, opens it on read, and reads a legacy plain-text key as it is", async () => {
  const database = await createTestDatabase("lattice_assistant_keys");
  const store = new PostgreSQLAssistantStore({ poolConfig: database.url, keyring });
  const pool = new Pool({ connectionString: database.url });
  const storedKey = async (id: string) =>
    (await pool.query<{ key: string }>("SELECT model->>'apiKey' AS key FROM lattice_assistants WHERE tenant_id = 't' AND id = $1", [id])).rows[0].key;
  try {
    await store.createAssistant("t", { id: "a", name: "A", model: { provider: "openai", model: "m", apiKey: "sk-assistant-first" } });
    expect(await storedKey("a")).toMatch(/^enc:v1:/);
    expect((await store.getAssistant("t", "a"))?.model.apiKey).toBe("sk-assistant-first");
    const updated = await store.updateAssistant("t", "a", { model: { provider: "openai", model: "m", apiKey: "sk-assistant-second" } });
    expect(updated?.model.apiKey).toBe("sk-assistant-second");
    expect(await storedKey("a")).toMatch(/^enc:v1:/);
    expect(await storedKey("a")).not.toContain("sk-assistant-second");

    await pool.query(
      `INSERT INTO lattice_assistants (tenant_id, id, name, graph, model, tools, created_at, updated_at)
       VALUES ('t', 'legacy', 'Legacy', 'react', '{"provider":"openai","model":"m","apiKey":"sk-legacy-plain"}', '{}', now(), now())`,
    );
    expect((await store.listAssistants("t")).map((assistant) => assistant.model.apiKey)).toEqual(["sk-assistant-second", "sk-legacy-plain"]);
  } finally {
    await Promise.all([store.dispose(), pool.end()]);
    await database.drop();
  }
});
