import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ThreadMessageQueueStore, allMigrations, runMigrations } from "../src";

// Migration 200 on a database that already holds messages: one that was claimed, or handed back after
// streaming, counts as claimed once, so its next run knows it is a re-run; one never claimed, none.
let database: TestDatabase;
let store: ThreadMessageQueueStore;
const scope = { tenantId: "acme", assistantId: "a" };

beforeAll(async () => {
  database = await createTestDatabase("lattice_queue_attempts");
  const pool = new Pool({ connectionString: database.url, max: 1 });
  try {
    await runMigrations(pool, { migrations: allMigrations.filter((migration) => migration.version < 200) });
    await pool.query(
      `INSERT INTO lattice_thread_message_queue (id, thread_id, tenant_id, assistant_id, content, sequence, status, run_status, locked_by, started_at)
       VALUES ('running', 'th', 'acme', 'a', '1', nextval('lattice_thread_message_queue_sequence'), 'processing', 'running', 'r#1', now()),
              ('handed-back', 'th', 'acme', 'a', '2', nextval('lattice_thread_message_queue_sequence'), 'pending', 'pending', NULL, NULL),
              ('never-run', 'th', 'acme', 'a', '3', nextval('lattice_thread_message_queue_sequence'), 'pending', 'pending', NULL, NULL)`,
    );
    await pool.query(
      `INSERT INTO lattice_run_events (tenant_id, assistant_id, thread_id, message_id, event_index, type, data)
       VALUES ('acme', 'a', 'th', 'handed-back', 0, 'message_chunk', '{}')`,
    );
  } finally {
    await pool.end();
  }
  store = new ThreadMessageQueueStore({ poolConfig: database.url });
  await store.initialize();
});

afterAll(async () => {
  await store?.dispose();
  await database?.drop();
});

it("counts a message claimed, or handed back after streaming, as claimed once; one never run as never claimed", async () => {
  const attempts = async (id: string) => (await store.getMessage(id, scope))?.attempts;
  expect([await attempts("running"), await attempts("handed-back"), await attempts("never-run")]).toEqual([1, 1, 0]);
  await store.resetProcessingToPending("th", scope);
  const claimed = await store.claimPendingMessages("th", scope, { owner: "r#2", leaseMs: 60_000, limit: 3 });
  expect(claimed.map((message) => [message.id, message.attempts])).toEqual([
    ["running", 2],
    ["handed-back", 2],
    ["never-run", 1],
  ]);
});
