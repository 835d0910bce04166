import { Client, type Pool, type QueryConfig } from "pg";
import { type PoolerOptions, withSessionPool } from "../db/pooler";
import { allMigrations } from "./index";
import type { Migration } from "./migration";

// One application-wide advisory lock key: replicas starting together take turns.
export const MIGRATION_LOCK_KEY = 7_311_853_185;

/** A migration that failed; the whole batch was rolled back. */
export class MigrationError extends Error {
  constructor(
    readonly migration: Migration,
    override readonly cause: unknown,
  ) {
    super(`Migration ${migration.version} "${migration.name}" failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "MigrationError";
  }
}

export interface MigrationResult {
  applied: Migration[];
}

const CREATE_LEDGER = `
  CREATE TABLE IF NOT EXISTS lattice_schema_migrations (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`;

/**
 * Applies every pending migration, in version order, in one transaction held under the migration
 * advisory lock. Extra `afterMigrate` work (such as LangGraph's checkpoint setup) runs under the same
 * lock, after the transaction commits.
 */
export async function runMigrations(
  pool: Pool,
  options: { migrations?: Migration[]; afterMigrate?: () => Promise<void> } = {},
): Promise<MigrationResult> {
  const migrations = [...(options.migrations ?? allMigrations)].sort((a, b) => a.version - b.version);
  // Its own connection, without the pool's statement timeouts: it may wait its turn behind a peer's
  // migration and build indexes on large tables, legitimately longer than any request's statement.
  const client = new Client({ ...pool.options, statement_timeout: undefined, query_timeout: undefined });
  client.on("error", () => undefined); // a lost connection fails the query in progress, which is reported
  await client.connect();
  let applied: Migration[] = [];
  try {
    // Session lock (not transaction-scoped) so it also covers afterMigrate; hence never run through a
    // transaction pooler, where the unlock could reach another server session (see db/pooler.ts).
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    try {
      await client.query("BEGIN");
      try {
        await client.query(CREATE_LEDGER);
        const { rows } = await client.query<{ version: number }>("SELECT version FROM lattice_schema_migrations");
        const done = new Set(rows.map((row) => row.version));
        applied = migrations.filter((migration) => !done.has(migration.version));
        for (const migration of applied) {
          try {
            await client.query(migration.sql);
          } catch (error) {
            throw new MigrationError(migration, error);
          }
          await client.query("INSERT INTO lattice_schema_migrations (version, name) VALUES ($1, $2)", [
            migration.version,
            migration.name,
          ]);
        }
        await client.query("COMMIT");
      } catch (error) {
        // The migration's own error is the one to report; a connection that cannot roll back is
        // closed below, which aborts the transaction server-side.
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
      await options.afterMigrate?.();
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    // Closing the connection also drops the session lock, should unlocking have failed.
    await client.end().catch(() => undefined);
  }
  return { applied };
}

const migratedPools = new WeakMap<Pool, Promise<MigrationResult>>();

/**
 * Runs the migrations once per pool, however many stores share it; behind a pooler, on the direct
 * connection (the migration lock is a session lock).
 */
export function ensureMigrated(pool: Pool, pooler: PoolerOptions = {}): Promise<MigrationResult> {
  let pending = migratedPools.get(pool);
  if (!pending) {
    pending = withSessionPool(pool, pooler, (sessions) => runMigrations(sessions));
    migratedPools.set(pool, pending);
    // A failed attempt may be retried by the next caller.
    pending.catch(() => migratedPools.delete(pool));
  }
  return pending;
}

/**
 * How many of {@link allMigrations} the database has not applied: a replica's readiness check. A
 * connection that does not answer within `timeoutMs` is given up (and discarded) as soon as the check is.
 */
export async function countMissingMigrations(pool: Pool, timeoutMs: number): Promise<number> {
  // node-postgres reads a query's own query_timeout, which its types leave out.
  const probe: QueryConfig & { query_timeout: number } = {
    text: "SELECT count(*)::int AS applied FROM lattice_schema_migrations WHERE version = ANY($1::int[])",
    values: [allMigrations.map((migration) => migration.version)],
    query_timeout: timeoutMs,
  };
  const { rows } = await pool.query<{ applied: number }>(probe);
  return allMigrations.length - rows[0].applied;
}
