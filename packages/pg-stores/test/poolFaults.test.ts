import { isDatabaseUnavailable } from "@axiom-lattice/core";
import { createTestDatabase, recordingLogger, eventually, type TestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PostgreSQLStores, createPostgreSQLStores } from "../src";

// A pg client or pool that emits 'error' with nobody listening throws: in a replica that ends the
// process. Here it would fail the test run as an unhandled error.
let db: TestDatabase;
let admin: Pool;
let pg: PostgreSQLStores;
const { logger, entries: logs } = recordingLogger();

const terminate = (pid: number) => admin.query("SELECT pg_terminate_backend($1)", [pid]);

beforeAll(async () => {
  db = await createTestDatabase("lattice_pool_faults");
  admin = new Pool({ connectionString: db.url, max: 1 });
  pg = await createPostgreSQLStores(db.url, { poolConfig: { application_name: "pool-faults" }, logger });
});

afterAll(async () => {
  await pg?.dispose();
  await admin?.end();
  await db?.drop();
});

describe("the stores' pool", () => {
  it("discards an idle connection whose backend was terminated, and serves the next query on a fresh one", async () => {
    const { rows } = await pg.pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    await terminate(rows[0].pid);
    await eventually("the pool to discard the connection", () => pg.pool.totalCount === 0);
    const { rows: again } = await pg.pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    expect(again[0].pid).not.toBe(rows[0].pid);
    expect(logs).toContainEqual(expect.objectContaining({ level: "warn", msg: expect.stringContaining("database connection lost") }));
  });

  it("survives a checked-out connection's backend terminated between two queries (as inside a transaction); its holder sees an unavailability error", async () => {
    const client = await pg.pool.connect();
    try {
      await client.query("BEGIN");
      const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      await terminate(rows[0].pid);
      await new Promise((resolve) => setTimeout(resolve, 200)); // the 'error' event arrives while nobody queries
      const error = await client.query("SELECT 1").catch((caught: unknown) => caught);
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      client.release(true);
    }
    expect((await pg.pool.query("SELECT 1 AS ok")).rows).toEqual([{ ok: 1 }]);
  });
});
