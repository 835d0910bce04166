import { createHash, randomBytes } from "node:crypto";
import { Client } from "pg";

/** The server tests create their databases on (an admin connection). */
export function adminDatabaseUrl(): string {
  return process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
}

export interface TestDatabase {
  name: string;
  url: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

async function withAdmin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminDatabaseUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A database to copy test databases from: `name` tells its contents apart (say, a digest of the
 * migrations it holds), `build` fills it (and closes every connection it opened).
 */
export interface DatabaseTemplate {
  name: string;
  build(url: string): Promise<void>;
  /**
   * The name prefix its other versions share: building a new one drops the oldest beyond the newest
   * {@link TEMPLATES_KEPT}, so a developer's server doesn't collect one per migration ever changed.
   */
  family?: string;
}

/** Templates of one family kept: a few, for checkouts of other branches running on the same server. */
const TEMPLATES_KEPT = 4;

const MIGRATED_FAMILY = "lattice_template_";

/**
 * The template of a migrated schema: named by a digest of the migrations, so a changed or added
 * migration builds a new one; `migrate` brings an empty database to them.
 */
export function migratedTemplate(migrations: ReadonlyArray<{ version: number; sql: string }>, migrate: (url: string) => Promise<void>): DatabaseTemplate {
  const digest = createHash("sha256");
  for (const migration of migrations) digest.update(`${migration.version}\n${migration.sql}\n`);
  return { name: `${MIGRATED_FAMILY}${digest.digest("hex").slice(0, 16)}`, build: migrate, family: MIGRATED_FAMILY };
}

const urlOf = (name: string): string => {
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${name}`;
  return url.toString();
};

const OBJECT_IN_USE = "55006";

/**
 * The template's database, built once per server: migrating a database takes 0.5–0.7 s of the
 * server's time, copying a migrated one under 0.1 s, and a run of the suite creates hundreds. Test
 * processes race here, so the first builds under an advisory lock while the others wait; it builds
 * under a temporary name, so a build killed halfway never passes for a template.
 */
async function ensureTemplate(template: DatabaseTemplate): Promise<void> {
  // Once a process has seen the template, it stays: only the first database of each process asks.
  if (templatesSeen.has(template.name)) return;
  await withAdmin(async (client) => {
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [template.name]);
    try {
      const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [template.name]);
      if (rowCount) return;
      const building = `${template.name}_building_${randomBytes(4).toString("hex")}`;
      await client.query(`CREATE DATABASE "${building}"`);
      await template.build(urlOf(building));
      await retryWhileInUse(() => client.query(`ALTER DATABASE "${building}" RENAME TO "${template.name}"`));
      // Nobody connects to a template: a session there would make every copy of it fail.
      await client.query(`ALTER DATABASE "${template.name}" WITH ALLOW_CONNECTIONS false`);
      if (template.family) await pruneTemplates(client, template.family);
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext($1))", [template.name]);
    }
  });
  templatesSeen.add(template.name);
}

/** `DROP DATABASE`, leaving one in use (an old template being copied this moment) for the next prune. */
async function dropUnlessInUse(client: Client, name: string): Promise<void> {
  await client.query(`DROP DATABASE IF EXISTS "${name}"`).catch((error: { code?: string }) => {
    if (error.code !== OBJECT_IN_USE) throw error;
  });
}

/**
 * Drops a family's templates beyond the newest {@link TEMPLATES_KEPT} (database oids grow with
 * creation), and the half-built ones of killed builds: those whose template's lock is free (advisory
 * locks are reentrant, so the caller's own template counts as free).
 */
async function pruneTemplates(client: Client, family: string): Promise<void> {
  const { rows } = await client.query<{ datname: string; building: boolean }>(
    `
    SELECT datname, datname LIKE '%\\_building\\_%' AS building
    FROM pg_database
    WHERE starts_with(datname, $1)
    ORDER BY oid DESC`,
    [family],
  );
  const built = rows.filter((row) => !row.building).slice(TEMPLATES_KEPT);
  for (const { datname } of built) await dropUnlessInUse(client, datname);
  for (const { datname } of rows.filter((row) => row.building)) {
    const lock = datname.slice(0, datname.indexOf("_building_"));
    const { rows: taken } = await client.query<{ free: boolean }>("SELECT pg_try_advisory_lock(hashtext($1)) AS free", [lock]);
    if (!taken[0].free) continue;
    try {
      await dropUnlessInUse(client, datname);
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext($1))", [lock]);
    }
  }
}

/** The templates this process found built. */
const templatesSeen = new Set<string>();

/** pg's Pool.end() resolves before its sockets close: a database just used may still show sessions. */
async function retryWhileInUse<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if ((error as { code?: string }).code !== OBJECT_IN_USE || tries >= 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * Creates a fresh database for one test file: empty, or a copy of `template` (built on first use).
 */
export async function createTestDatabase(prefix = "lattice_test", template?: DatabaseTemplate): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  if (template) {
    await ensureTemplate(template);
    await withAdmin((client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${template.name}"`));
  } else {
    await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
  }
  return {
    name,
    url: urlOf(name),
    drop: () =>
      withAdmin(async (client) => {
        // pg's Pool.end() resolves before its sockets close: give closing sessions a moment, so FORCE
        // only ends connections left open (which would otherwise surface as an unhandled pool error).
        const deadline = Date.now() + 2_000;
        while (Date.now() < deadline) {
          const { rows } = await client.query("SELECT 1 FROM pg_stat_activity WHERE datname = $1 LIMIT 1", [name]);
          if (rows.length === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }),
  };
}
