import { SecretKeyring } from "@axiom-lattice/core";
import { assistantStoreContract, createTestDatabase } from "@axiom-lattice/testing";
import { randomBytes } from "node:crypto";
import { Pool } from "pg";
import { expect, it } from "vitest";
import { PostgreSQLAssistantStore, allMigrations, runMigrations } from "../src";
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
    expect((await store.listAssistants("t", { limit: 10 })).items.map((assistant) => assistant.model.apiKey)).toEqual(["sk-assistant-second", "sk-legacy-plain"]);
  } finally {
    await Promise.all([store.dispose(), pool.end()]);
    await database.drop();
  }
});

it("gives racing updates of one assistant from several pools (as replicas) distinct version numbers, 2..N+1", async () => {
  const database = await createTestDatabase("lattice_assistant_version_races");
  const stores = Array.from({ length: 4 }, () => new PostgreSQLAssistantStore({ poolConfig: { connectionString: database.url, max: 3 }, keyring }));
  try {
    await stores[0]!.createAssistant("t", { id: "raced", name: "Raced", model: { provider: "scripted" } });
    const rounds = 5;
    const perStore = 3;
    for (let round = 0; round < rounds; round += 1) {
      await Promise.all(stores.flatMap((store, racer) => Array.from({ length: perStore }, (_, index) => store.updateAssistant("t", "raced", { name: `r${round} s${racer} u${index}` }))));
    }
    const updates = rounds * stores.length * perStore;
    const versions = (await stores[1]!.listAssistantVersions("t", "raced", { limit: 1000, offset: 0 }))!;
    expect(versions.map((version) => version.version)).toEqual(Array.from({ length: updates + 1 }, (_, index) => updates + 1 - index));
    expect(new Set(versions.slice(0, -1).map((version) => version.name)).size).toBe(updates);
    expect((await stores[2]!.getAssistant("t", "raced"))?.version).toBe(updates + 1);
  } finally {
    await Promise.all(stores.map((store) => store.dispose()));
    await database.drop();
  }
}, 60_000);

it("keeps an assistant stored before versions existed as its one version, and numbers its next update after it", async () => {
  const database = await createTestDatabase("lattice_assistant_versions_migrated");
  const pool = new Pool({ connectionString: database.url, max: 1 });
  const store = new PostgreSQLAssistantStore({ poolConfig: database.url, keyring });
  try {
    await runMigrations(pool, { migrations: allMigrations.filter((migration) => migration.version < 205) });
    await pool.query(
      `INSERT INTO lattice_assistants (tenant_id, id, name, graph, model, tools, metadata, version, created_at, updated_at)
       VALUES ('t', 'old', 'Old', 'react', '{"provider":"scripted"}', '{}', '{"team":"a"}', 3, now(), now())`,
    );
    const versions = await store.listAssistantVersions("t", "old", { limit: 10, offset: 0 });
    expect(versions).toEqual([expect.objectContaining({ assistantId: "old", version: 3, name: "Old", metadata: { team: "a" } })]);
    expect(await store.updateAssistant("t", "old", { name: "New" })).toMatchObject({ name: "New", version: 4 });
    expect((await store.setCurrentAssistantVersion("t", "old", 3))?.name).toBe("Old");
  } finally {
    await Promise.all([store.dispose(), pool.end()]);
    await database.drop();
  }
});
