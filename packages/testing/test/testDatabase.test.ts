import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { adminDatabaseUrl, createTestDatabase, type DatabaseTemplate, type TestDatabase } from "../src/testDatabase";

const family = `lattice_test_family_${randomBytes(4).toString("hex")}_`;
const created: TestDatabase[] = [];

async function admin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminDatabaseUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const familyDatabases = () =>
  admin(async (client) => (await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname", [family])).rows.map((row) => row.datname));

/** A template of the family that counts its builds and leaves one table behind. */
function template(version: string, builds: { count: number }): DatabaseTemplate {
  return {
    name: `${family}${version}`,
    family,
    build: async (url) => {
      builds.count++;
      const client = new Client({ connectionString: url });
      await client.connect();
      await client.query("CREATE TABLE built (version text)");
      await client.query("INSERT INTO built VALUES ($1)", [version]);
      await client.end();
    },
  };
}

// Each case creates and drops a dozen databases, each a copy and an fsync of its own: seconds on a
// quiet machine, and more beside CI's other test streams.
const DATABASE_WORK_MS = 60_000;

afterAll(async () => {
  for (const database of created) await database.drop();
  await admin(async (client) => {
    for (const name of await familyDatabases()) await client.query(`DROP DATABASE IF EXISTS "${name}"`);
  });
}, DATABASE_WORK_MS);

describe("createTestDatabase with a template", { timeout: DATABASE_WORK_MS }, () => {
  it("builds a template once while callers race for it, and copies it to each", async () => {
    const builds = { count: 0 };
    const raced = template("race", builds);
    const databases = await Promise.all(Array.from({ length: 6 }, () => createTestDatabase("lattice_test_copy", raced)));
    created.push(...databases);
    expect(builds.count).toBe(1);
    for (const database of databases) {
      const client = new Client({ connectionString: database.url });
      await client.connect();
      expect((await client.query("SELECT version FROM built")).rows).toEqual([{ version: "race" }]);
      await client.end();
    }
  });

  it("keeps a family's newest templates and drops killed builds whose lock is free", async () => {
    const builds = { count: 0 };
    const holder = new Client({ connectionString: adminDatabaseUrl() });
    await holder.connect();
    try {
      await admin(async (client) => {
        await client.query(`CREATE DATABASE "${family}killed_building_0001"`);
        await client.query(`CREATE DATABASE "${family}inflight_building_0002"`);
      });
      // Another process is building "inflight" right now: it holds that template's lock.
      await holder.query("SELECT pg_advisory_lock(hashtext($1))", [`${family}inflight`]);
      for (const version of ["v1", "v2", "v3", "v4", "v5", "v6"]) {
        created.push(await createTestDatabase("lattice_test_copy", template(version, builds)));
      }
      const left = await familyDatabases();
      expect(left).toContain(`${family}inflight_building_0002`);
      expect(left).not.toContain(`${family}killed_building_0001`);
      expect(left.filter((name) => !name.includes("_building_"))).toEqual([`${family}v3`, `${family}v4`, `${family}v5`, `${family}v6`]);
    } finally {
      await holder.end();
    }
  });
});
