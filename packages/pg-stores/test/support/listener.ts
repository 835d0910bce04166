import type { Logger } from "@axiom-lattice/core";
import { ListenerConnection, type TestDatabase, createTestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll, beforeAll } from "vitest";

export interface ListenerDatabase {
  /** The test database, for the stores under test. */
  url: string;
  /** A pool of its own, to look at (and kill) the stores' connections. */
  admin: Pool;
  /** The LISTEN connection of the listener under test. */
  listener: ListenerConnection;
  /** The logger to give the stores under test: keeps their warnings off the test output. */
  logger: Logger;
  /** What the stores given {@link logger} logged as warnings (a killed connection is one), for checking. */
  warnings: string[];
}

/**
 * The setup of a file that tests a LISTEN/NOTIFY listener named `applicationName`: a logger capturing
 * warnings, a fresh database and an admin pool before its tests. Call it before registering the file's
 * own hooks: after-hooks run in reverse, so the database goes only once the file disposed of its stores.
 * The returned object is filled in before the first test.
 */
export function useListenerDatabase(applicationName: string): ListenerDatabase {
  const warnings: string[] = [];
  const logger: Logger = { debug() {}, info() {}, error() {}, warn: (_fields, msg) => warnings.push(msg ?? ""), child: () => logger };
  const db = { warnings, logger } as ListenerDatabase;
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    db.url = database.url;
    db.admin = new Pool({ connectionString: database.url, max: 1 });
    db.listener = new ListenerConnection(db.admin, applicationName);
  });
  afterAll(async () => {
    await db.admin.end();
    await database.drop();
  });
  return db;
}

