// The committed schema.sql is what the migrations build, so every schema change shows in review.
// After adding a migration, regenerate it with `pnpm --filter @axiom-lattice/pg-stores schema:update`
// and commit the result; CI never writes it (vitest does not update file snapshots there).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createTestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { expect, it } from "vitest";
import { runMigrations } from "../../src";

/** The schema as pg_dump prints it, without what varies between runs and servers (comments, settings). */
async function dumpSchema(url: string): Promise<string> {
  const { stdout } = await promisify(execFile)("pg_dump", ["--schema-only", "--no-owner", "--no-privileges", url]);
  return `${stdout
    .split("\n")
    .filter((line) => !/^(--|SET |SELECT pg_catalog\.set_config|\\(un)?restrict )/.test(line))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()}\n`;
}

it("the migrations build exactly the committed schema.sql", { timeout: 60_000 }, async () => {
  const database = await createTestDatabase("lattice_schema");
  const pool = new Pool({ connectionString: database.url, max: 1 });
  try {
    await runMigrations(pool);
    await expect(await dumpSchema(database.url)).toMatchFileSnapshot("../../schema.sql");
  } finally {
    await pool.end();
    await database.drop();
  }
});
