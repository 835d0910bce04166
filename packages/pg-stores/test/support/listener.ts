import { type Logger, setLogger } from "@axiom-lattice/core";
import { type TestDatabase, createTestDatabase, eventually } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll, beforeAll, expect } from "vitest";

export interface ListenerDatabase {
  /** The test database, for the stores under test. */
  url: string;
  /** A pool of its own, to look at (and kill) the stores' connections. */
  admin: Pool;
  /** The LISTEN connection of the listener under test. */
  listener: ListenerConnection;
  /** What core logged as warnings (a killed connection is one): kept off the test output, for checking. */
  warnings: string[];
}

/**
 * The setup of a file that tests a LISTEN/NOTIFY listener named `applicationName`: core's warnings
 * captured, a fresh database and an admin pool before its tests. Call it before registering the file's
 * own hooks: after-hooks run in reverse, so the database goes only once the file disposed of its stores.
 * The returned object is filled in before the first test.
 */
export function useListenerDatabase(applicationName: string): ListenerDatabase {
  const db = { warnings: [] as string[] } as ListenerDatabase;
  let database: TestDatabase;
  beforeAll(async () => {
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (_fields, msg) => db.warnings.push(msg ?? ""), child: () => logger };
    setLogger(logger);
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

/**
 * A listener's dedicated LISTEN connection, found by its application_name through an admin pool, so a
 * test can kill it server-side as a network failure or a restarted server would.
 */
export class ListenerConnection {
  constructor(
    private readonly admin: Pool,
    private readonly applicationName: string,
  ) {}

  /** Its backend's pid, once its LISTEN has completed. */
  async backend(): Promise<number | undefined> {
    const { rows } = await this.admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = $1 AND state = 'idle' AND query LIKE 'LISTEN%'`,
      [this.applicationName],
    );
    return rows.length === 1 ? rows[0].pid : undefined;
  }

  async awaitListening(): Promise<void> {
    await eventually(`${this.applicationName} to listen`, async () => (await this.backend()) !== undefined);
  }

  /** Terminates its backend; returns the killed pid. */
  async kill(): Promise<number> {
    const pid = await this.backend();
    expect(pid).toBeDefined();
    const { rows } = await this.admin.query<{ ok: boolean }>("SELECT pg_terminate_backend($1) AS ok", [pid]);
    expect(rows[0].ok).toBe(true);
    return pid!;
  }

  /** Kills it, then waits until the listener has LISTENed again on a new connection. */
  async killAndAwaitRelisten(): Promise<void> {
    const killed = await this.kill();
    await eventually(`${this.applicationName} to listen on a new connection`, async () => {
      const pid = await this.backend();
      return pid !== undefined && pid !== killed;
    });
  }
}
