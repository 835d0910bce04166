import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgreSQLScheduleStore, allMigrations, runMigrations } from "../../src";

// Migration 213 on a database that holds agent-message schedules of the camelCase API: their
// payloads take the snake_case keys the handler reads; other task types' payloads are left alone.
let database: TestDatabase;
let store: PostgreSQLScheduleStore;

const insert = (taskId: string, taskType: string, payload: object) =>
  `INSERT INTO lattice_scheduled_tasks (task_id, tenant_id, task_type, payload, execution_type, execute_at, catch_up, status)
   VALUES ('${taskId}', 'acme', '${taskType}', '${JSON.stringify(payload)}', 'once', now(), 'once', 'pending')`;

beforeAll(async () => {
  database = await createTestDatabase("lattice_agent_message_keys");
  const pool = new Pool({ connectionString: database.url, max: 1 });
  try {
    await runMigrations(pool, { migrations: allMigrations.filter((migration) => migration.version < 213) });
    await pool.query(insert("old", "agent-message", { assistantId: "as-1", threadId: "th-1", message: "hi" }));
    await pool.query(insert("new", "agent-message", { assistant_id: "as-2", thread_id: "th-2", message: "hello" }));
    await pool.query(insert("custom", "report", { assistantId: "kept", nested: { threadId: "kept" } }));
  } finally {
    await pool.end();
  }
  store = new PostgreSQLScheduleStore({ poolConfig: database.url });
  await store.initialize();
});

afterAll(async () => {
  await store?.dispose();
  await database?.drop();
});

it("renames the keys of stored agent-message payloads, and only those", async () => {
  expect((await store.get("old"))?.payload).toEqual({ assistant_id: "as-1", thread_id: "th-1", message: "hi" });
  expect((await store.get("new"))?.payload).toEqual({ assistant_id: "as-2", thread_id: "th-2", message: "hello" });
  expect((await store.get("custom"))?.payload).toEqual({ assistantId: "kept", nested: { threadId: "kept" } });
});
