import { type TestDatabase, createTestDatabase, fencedWritesContract, recordingLogger } from "@axiom-lattice/testing";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { type PostgreSQLStores, createPostgreSQLStores } from "../src";
import { LOCK_FENCE } from "../src/coordination/fenceSql";

let database: TestDatabase | undefined;
const opened: PostgreSQLStores[] = [];

afterAll(async () => {
  await Promise.all(opened.map((config) => config.dispose()));
  await database?.drop();
});

fencedWritesContract("PostgreSQL", {
  open: async (count) => {
    database = await createTestDatabase("lattice_fenced_writes");
    const url = database.url;
    // Migrated once, then one pool per replica: each replica's writes race the others' over connections of their own.
    for (let n = 0; n < count; n += 1) opened.push(await createPostgreSQLStores(url, { poolConfig: { max: 4 } }));
    return opened.map((config) => ({
      leases: config.lease,
      queue: config.queue,
      runEvents: config.runEvents,
      items: config.items,
      tasks: config.tasks,
      checkpoints: config.checkpoint,
    }));
  },
});

describe("a fenced transaction its replica left open (paused mid-write)", () => {
  it("is ended by the server after the idle-in-transaction timeout, so the takeover its fence held back goes through", async () => {
    const idle = await createTestDatabase("lattice_fence_idle");
    const url = idle.url;
    // Its pool logs the connection the server ended: kept off the test's output.
    const stalled = await createPostgreSQLStores(url, { poolConfig: { max: 2, idle_in_transaction_session_timeout: 300 }, logger: recordingLogger().logger });
    const peer = await createPostgreSQLStores(url, { poolConfig: { max: 2 } });
    try {
      const lease = await stalled.lease.acquire("thread-run:t", "paused#1", 50);
      const client = await stalled.pool.connect();
      client.on("error", () => {});
      await client.query("BEGIN");
      expect((await client.query(LOCK_FENCE, ["thread-run:t", lease!.token])).rowCount).toBe(1);
      // The replica stops here, its transaction open and the fence's share lock held.
      await sleep(100);
      const started = Date.now();
      const successor = await peer.lease.acquire("thread-run:t", "peer#1", 60_000);
      expect(successor?.holder).toBe("peer#1");
      expect(Date.now() - started).toBeGreaterThan(100);
      await expect(client.query("SELECT 1")).rejects.toThrow();
      client.release(true);
    } finally {
      await Promise.all([stalled.dispose(), peer.dispose()]);
      await idle.drop();
    }
  });
});
