import { createTestDatabase, migratedTemplate, type TestDatabase } from "@axiom-lattice/testing";
import { afterAll } from "vitest";
import { allMigrations, createPostgreSQLStores } from "../../src";

/** The migrated schema stores are tested on, copied rather than migrated anew for each file. */
const migratedSchema = migratedTemplate(allMigrations, async (url) => (await createPostgreSQLStores(url)).dispose());

interface DisposableStore {
  initialize(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * The `makeStore` of a contract suite: a store on a fresh test database, initialised before use;
 * store and database go after the file's tests.
 */
export function storeOnTestDatabase<T extends DisposableStore>(open: (url: string) => T, prefix?: string): () => Promise<T> {
  let database: TestDatabase | undefined;
  let store: T | undefined;
  afterAll(async () => {
    await store?.dispose();
    await database?.drop();
  });
  return async () => {
    database = await createTestDatabase(prefix, migratedSchema);
    store = open(database.url);
    await store.initialize();
    return store;
  };
}
