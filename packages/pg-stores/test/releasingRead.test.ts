import { eventually, fresh, releasingReadContract } from "@axiom-lattice/testing";
import { afterAll, describe, expect, it } from "vitest";
import { PostgreSQLLeaseStore, PostgreSQLMessageQueueStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

let queue: PostgreSQLMessageQueueStore | undefined;
const openLeases = storeOnTestDatabase((url) => {
  // The queue whose reads release its leases, on a pool of its own over the same database.
  queue = new PostgreSQLMessageQueueStore({ poolConfig: url });
  return new PostgreSQLLeaseStore({ poolConfig: url });
}, "lattice_releasing_read");

/** Both stores on one database, opened once for the file. */
let opened: Promise<{ queue: PostgreSQLMessageQueueStore; leases: PostgreSQLLeaseStore }> | undefined;
const open = () =>
  (opened ??= (async () => {
    const leases = await openLeases();
    await queue!.initialize();
    return { queue: queue!, leases };
  })());

releasingReadContract("PostgreSQL", { open });

describe("a pending read after a lease's release, on PostgreSQL", () => {
  it("reads after the release got the lease's row: it sees an add committed while the release waited for it", async () => {
    const { queue, leases } = await open();
    const pool = queue["pool"];
    const thread = { tenantId: "tenant", assistantId: "assistant", threadId: fresh("thread") };
    const key = fresh("thread-run");
    await leases.acquire(key, "holder#1", 60_000);

    // Another transaction holds the lease's row, as an adder's try for the lease does for a moment.
    const blocker = await pool.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query("SELECT FROM lattice_leases WHERE key = $1 FOR UPDATE", [key]);
      const reading = queue.getPendingMessages(thread, { afterReleasing: { key, holder: "holder#1" } });
      await eventually("the release to wait for the lease's row", async () => {
        const { rows } = await pool.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting
             FROM pg_stat_activity
            WHERE datname = current_database()
              AND wait_event_type = 'Lock'
              AND query LIKE '%lattice_release_lease_then_pending%'`,
        );
        return rows[0].waiting === 1;
      });
      // Added once the read's statement began: a single statement's snapshot (taken then) would miss it.
      const added = await queue.addMessage({ threadId: thread.threadId, scope: thread, content: {} });
      await blocker.query("COMMIT");
      expect((await reading).map((message) => message.id)).toEqual([added.id]);
      expect(await leases.get(key)).toBeNull();
    } finally {
      blocker.release();
    }
  });
});

// Registered after storeOnTestDatabase's afterAll, so it runs first (last registered, first run): the queue closes before the database goes.
afterAll(() => queue?.dispose());
