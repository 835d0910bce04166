import { createTestDatabase, eventually, type TestDatabase } from "@axiom-lattice/testing";
import { Client, Pool } from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { allMigrations, type Migration, MIGRATION_LOCK_KEY, MigrationError, runMigrations } from "../src";
import { Child, killRunningChildren } from "./support/children";

let database: TestDatabase;
let pool: Pool;

beforeEach(async () => {
  database = await createTestDatabase("lattice_migrations");
  pool = new Pool({ connectionString: database.url, max: 2 });
});

afterEach(async () => {
  await killRunningChildren();
  await pool.end();
  await database.drop();
});

async function ledger(): Promise<{ version: number; name: string }[]> {
  const { rows } = await pool.query<{ version: number; name: string }>("SELECT version, name FROM lattice_schema_migrations ORDER BY version");
  return rows;
}

const exists = async (relation: string) =>
  (await pool.query<{ found: string | null }>("SELECT to_regclass($1)::text AS found", [relation])).rows[0].found !== null;

const expectedLedger = () => allMigrations.map(({ version, name }) => ({ version, name }));

// Bounded waits: each test creates a database and migrates it, some with 4 processes, on a shared machine.
describe("runMigrations", { timeout: 60_000 }, () => {
  it("applies every migration on an empty database and records each in lattice_schema_migrations", async () => {
    const { applied } = await runMigrations(pool);
    expect(applied.map((m) => m.version)).toEqual(allMigrations.map((m) => m.version));
    expect(await ledger()).toEqual(expectedLedger());
    expect(await exists("lattice_leases")).toBe(true);
  });

  it("applies nothing when run again", async () => {
    await runMigrations(pool);
    const { rows: before } = await pool.query("SELECT version, applied_at FROM lattice_schema_migrations ORDER BY version");
    expect((await runMigrations(pool)).applied).toEqual([]);
    const { rows: after } = await pool.query("SELECT version, applied_at FROM lattice_schema_migrations ORDER BY version");
    expect(after).toEqual(before);
  });

  it("rolls the whole batch back when one migration fails, with a MigrationError naming it", async () => {
    await runMigrations(pool);
    const batch: Migration[] = [
      ...allMigrations,
      { version: 9001, name: "good_table", sql: "CREATE TABLE migration_test_good (id int)" },
      { version: 9002, name: "broken_table", sql: "CREATE TABLE migration_test_broken (id int" },
    ];

    const error = await runMigrations(pool, { migrations: batch }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).migration).toMatchObject({ version: 9002, name: "broken_table" });
    expect((error as Error).message).toMatch(/9002.*broken_table/);
    expect((error as MigrationError).cause).toMatchObject({ code: "42601" }); // PostgreSQL's syntax_error
    expect(await exists("migration_test_good")).toBe(false);
    expect(await ledger()).toEqual(expectedLedger());
    // The advisory lock was given back: a peer can migrate at once.
    const peer = new Client({ connectionString: database.url });
    await peer.connect();
    try {
      expect((await peer.query("SELECT pg_try_advisory_lock($1) AS got", [MIGRATION_LOCK_KEY])).rows[0].got).toBe(true);
    } finally {
      await peer.end();
    }
  });

  it("leaves an empty database empty when the first batch fails", async () => {
    const error = await runMigrations(pool, {
      migrations: [{ version: 9003, name: "broken_first", sql: "SELEC 1" }],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect(await exists("lattice_schema_migrations")).toBe(false);
    expect((await runMigrations(pool)).applied).toHaveLength(allMigrations.length);
  });

  it("lets 4 processes starting at once on an empty database all succeed, applying each migration exactly once", async () => {
    // Hold the migration lock while the 4 processes start, so all of them are provably waiting on it
    // when it is let go: the race is certain, not left to process start-up timing.
    const gate = new Client({ connectionString: database.url });
    await gate.connect();
    const children: Child[] = [];
    try {
      await gate.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
      for (let i = 0; i < 4; i += 1) children.push(new Child("migrate.mjs", { url: database.url, applicationName: `migrate-${i}` }));
      await eventually("4 processes waiting on the migration lock", async () => {
        const { rows } = await gate.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting
             FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name LIKE 'migrate-%'`,
        );
        return rows[0].waiting === 4;
        // Bounded, not timed: four Node processes can take a while to start on a busy machine.
      }, { timeoutMs: 30_000 });
    } finally {
      await gate.end(); // ending the session releases the lock
    }

    const results = await Promise.all(children.map((child) => child.result<{ applied: number[]; known: number[] }>()));
    const known = results[0].known;
    expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
    expect(results.flatMap((r) => r.applied).sort((a, b) => a - b)).toEqual(known);
    expect((await ledger()).map((row) => row.version)).toEqual(known);
  });
});
