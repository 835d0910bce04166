import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { allMigrations, countMissingMigrations, runMigrations } from "../src";
import { SQL_MIGRATIONS_DIR, inVersionOrder, readSqlMigrations } from "../src/migrations/sqlMigrations";

// Numbered .sql files, read at run time as graphile-worker reads its migrations, beside the
// TypeScript modules that came before them.

// The first migration kept as a .sql file; every one before it is a TypeScript module.
const FIRST_SQL_VERSION = 220;

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lattice-sql-migrations-"));
  // 1000 sorts before 999 as text: applying 1000 first would fail, its table not yet created.
  await writeFile(path.join(dir, "999_sql_test_table.sql"), "CREATE TABLE sql_migration_test (step int NOT NULL);\nINSERT INTO sql_migration_test VALUES (1);\n");
  await writeFile(path.join(dir, "1000_sql_test_row.sql"), "INSERT INTO sql_migration_test VALUES (2);\n");
  await writeFile(path.join(dir, "notes.md"), "not a migration");
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("readSqlMigrations", () => {
  it("reads each <version>_<name>.sql as that version and name, its text as it is, and passes other files over", () => {
    expect(inVersionOrder(readSqlMigrations(dir))).toEqual([
      { version: 999, name: "sql_test_table", sql: "CREATE TABLE sql_migration_test (step int NOT NULL);\nINSERT INTO sql_migration_test VALUES (1);\n" },
      { version: 1000, name: "sql_test_row", sql: "INSERT INTO sql_migration_test VALUES (2);\n" },
    ]);
  });

  it("refuses a .sql file named otherwise rather than skip it", async () => {
    const misnamed = await mkdtemp(path.join(os.tmpdir(), "lattice-sql-misnamed-"));
    try {
      await writeFile(path.join(misnamed, "215-Add-Column.sql"), "SELECT 1");
      expect(() => readSqlMigrations(misnamed)).toThrow(/215-Add-Column\.sql is not named <version>_<name>\.sql/);
    } finally {
      await rm(misnamed, { recursive: true, force: true });
    }
  });

  it("refuses two migrations taking one version", () => {
    const module = { version: 999, name: "from_a_module", sql: "SELECT 1" };
    expect(() => inVersionOrder([module, ...readSqlMigrations(dir)])).toThrow(/both take version 999/);
  });

  it("is how the package's own migrations from 220 on are kept: the set holds them, in version order", () => {
    expect(readSqlMigrations(SQL_MIGRATIONS_DIR).every((migration) => migration.version >= FIRST_SQL_VERSION)).toBe(true);
    expect(allMigrations.find((migration) => migration.version === FIRST_SQL_VERSION)).toMatchObject({ name: "lattice_schema_migrations_comment" });
    const versions = allMigrations.map((migration) => migration.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
  });
});

describe("runMigrations with .sql migrations", { timeout: 60_000 }, () => {
  let database: TestDatabase;
  let pool: Pool;

  beforeEach(async () => {
    database = await createTestDatabase("lattice_sql_migrations");
    pool = new Pool({ connectionString: database.url, max: 2 });
  });

  afterEach(async () => {
    await pool.end();
    await database.drop();
  });

  const packageSqlLedger = allMigrations.filter((migration) => migration.version >= FIRST_SQL_VERSION).map(({ version, name }) => ({ version, name }));
  const packageSqlVersions = packageSqlLedger.map((migration) => migration.version);
  const ledger = async () =>
    (await pool.query<{ version: number; name: string }>("SELECT version, name FROM lattice_schema_migrations WHERE version >= 220 ORDER BY version")).rows;

  it("applies them once, in version order, after the others, and records each", async () => {
    const migrations = [...allMigrations, ...readSqlMigrations(dir)];
    const { applied } = await runMigrations(pool, { migrations });
    expect(applied.map((migration) => migration.version).slice(-3)).toEqual([packageSqlVersions.at(-1), 999, 1000]);
    expect(await ledger()).toEqual([
      ...packageSqlLedger,
      { version: 999, name: "sql_test_table" },
      { version: 1000, name: "sql_test_row" },
    ]);
    expect((await pool.query("SELECT step FROM sql_migration_test ORDER BY step")).rows).toEqual([{ step: 1 }, { step: 2 }]);

    expect((await runMigrations(pool, { migrations })).applied).toEqual([]);
    expect((await pool.query("SELECT step FROM sql_migration_test ORDER BY step")).rows).toEqual([{ step: 1 }, { step: 2 }]);
  });

  it("upgrades a database the TypeScript migrations built by applying only the .sql ones, which it counted as missing", async () => {
    await runMigrations(pool, { migrations: allMigrations.filter((migration) => migration.version < FIRST_SQL_VERSION) });
    const sqlMigrationCount = allMigrations.filter((migration) => migration.version >= FIRST_SQL_VERSION).length;
    expect(await countMissingMigrations(pool, 5_000)).toBe(sqlMigrationCount);
    const { applied } = await runMigrations(pool);
    expect(await countMissingMigrations(pool, 5_000)).toBe(0);
    expect(applied.map((migration) => migration.version)).toEqual(allMigrations.filter((migration) => migration.version >= FIRST_SQL_VERSION).map((migration) => migration.version));
    expect(await ledger()).toEqual(packageSqlLedger);
    const { rows } = await pool.query<{ comment: string }>("SELECT obj_description('lattice_schema_migrations'::regclass) AS comment");
    expect(rows[0].comment).toMatch(/numbered \.sql files from 220 on/);
  });
});
