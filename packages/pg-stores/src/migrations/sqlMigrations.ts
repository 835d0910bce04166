import { readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import type { Migration } from "./migration";

/** A migration file's name: its version, an underscore, its name in lowercase words, `.sql`. */
const SQL_MIGRATION_FILE = /^(\d+)_([a-z0-9_]+)\.sql$/;

/**
 * Where the `.sql` migrations are read from: beside this module in the source (src/migrations); once it
 * is bundled into dist/index.js (or .mjs), dist/migrations, where the build copies them. A missing
 * folder fails the import: a package that lost its migrations must not start on a partial schema.
 */
export const SQL_MIGRATIONS_DIR = basename(__dirname) === "migrations" ? __dirname : join(__dirname, "migrations");

/**
 * The numbered `.sql` files of `dir`, as graphile-worker keeps its migrations: `214_some_change.sql` is
 * version 214 named `some_change`, its text run as it is. The TypeScript migrations share the source
 * folder, so other files are passed over; a `.sql` file named otherwise is refused, not skipped.
 */
export function readSqlMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".sql"))
    .map((file) => {
      const match = SQL_MIGRATION_FILE.exec(file);
      if (!match) throw new Error(`${join(dir, file)} is not named <version>_<name>.sql (lowercase letters, digits, underscores)`);
      return { version: Number(match[1]), name: match[2], sql: readFileSync(join(dir, file), "utf8") };
    });
}

/** `migrations` sorted by version; two taking one version (a .sql file and a module, say) are refused. */
export function inVersionOrder(migrations: Migration[]): Migration[] {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((migration, i) => {
    if (i > 0 && sorted[i - 1].version === migration.version) {
      throw new Error(`Migrations "${sorted[i - 1].name}" and "${migration.name}" both take version ${migration.version}`);
    }
  });
  return sorted;
}
