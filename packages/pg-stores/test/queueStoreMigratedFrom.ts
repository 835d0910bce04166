import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll, beforeAll } from "vitest";
import { PostgreSQLMessageQueueStore, allMigrations, runMigrations } from "../src";

/**
 * For a test file of a migration on a database that already holds data: a fresh database migrated
 * up to (not including) `version`, filled by `seed`, then migrated the rest of the way by the queue
 * store's first use. Answers the store (and its pool, for SQL of the test's own).
 */
export function useQueueStoreMigratedFrom(version: number, databaseName: string, seed: (pool: Pool) => Promise<void>) {
  const handle = {} as { store: PostgreSQLMessageQueueStore; database: TestDatabase };
  beforeAll(async () => {
    handle.database = await createTestDatabase(databaseName);
    const pool = new Pool({ connectionString: handle.database.url, max: 1 });
    try {
      await runMigrations(pool, { migrations: allMigrations.filter((migration) => migration.version < version) });
      await seed(pool);
    } finally {
      await pool.end();
    }
    handle.store = new PostgreSQLMessageQueueStore({ poolConfig: handle.database.url });
    await handle.store.initialize();
  });
  afterAll(async () => {
    await handle.store?.dispose();
    await handle.database?.drop();
  });
  return () => handle.store;
}
