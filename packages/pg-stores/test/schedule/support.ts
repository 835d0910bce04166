import type { NewScheduledTask } from "@axiom-lattice/protocols";
import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll, afterEach, beforeAll } from "vitest";
import { PostgreSQLScheduleStore, runMigrations } from "../../src";
import { killRunningChildren } from "../support/children";

export interface FireDatabase {
  database: TestDatabase;
  pool: Pool;
  store: PostgreSQLScheduleStore;
}

/**
 * The setup of a file whose tests run scheduleReplica children: a migrated database with the fire
 * tables for the whole file (dropped after it), and no child left running after a test. The returned
 * object is filled in before the first test.
 */
export function useFireDatabase(prefix: string): FireDatabase {
  const db = {} as FireDatabase;
  beforeAll(async () => {
    db.database = await createTestDatabase(prefix);
    db.pool = new Pool({ connectionString: db.database.url, max: 3 });
    await runMigrations(db.pool);
    await createFireTables(db.pool);
    db.store = new PostgreSQLScheduleStore({ pool: db.pool, autoMigrate: false });
  });

  afterEach(killRunningChildren);

  afterAll(async () => {
    await db.pool?.end();
    await db.database?.drop();
  });
  return db;
}

/** The tables the scheduleReplica fixture's handler writes: one row per handler start, one per fire. */
async function createFireTables(pool: Pool): Promise<void> {
  await pool.query(`
    CREATE TABLE handler_starts (
      task_id    text        NOT NULL,
      fire_at    timestamptz NOT NULL,
      replica    text        NOT NULL,
      started_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    CREATE TABLE fires (task_id text NOT NULL, fire_at timestamptz NOT NULL, replica text NOT NULL);
    CREATE UNIQUE INDEX fires_once ON fires (task_id, fire_at);
    CREATE TABLE duplicate_fires (task_id text NOT NULL, fire_at timestamptz NOT NULL, replica text NOT NULL);
  `);
}

export interface FireRow {
  fireAt: number;
  replica: string;
}

export async function firesOf(pool: Pool, table: "fires" | "handler_starts" | "duplicate_fires", taskId: string): Promise<FireRow[]> {
  const { rows } = await pool.query<{ fire_at: Date; replica: string }>(
    `SELECT fire_at, replica FROM ${table} WHERE task_id = $1 ORDER BY fire_at`,
    [taskId],
  );
  return rows.map((row) => ({ fireAt: row.fire_at.getTime(), replica: row.replica }));
}

/** A pending task of the fixture's `record-fire` type. */
export function recordFireTask(taskId: string, when: Pick<NewScheduledTask, "executionType" | "executeAt" | "nextRunAt" | "cronExpression">): NewScheduledTask {
  return {
    taskId,
    tenantId: "default",
    taskType: "record-fire",
    payload: {},
    timezone: when.executionType === "cron" ? "UTC" : undefined,
    catchUp: "once",
    status: "pending",
    runCount: 0,
    retryCount: 0,
    maxRetries: 0,
    ...when,
  };
}
