import type { NewScheduledTask } from "@axiom-lattice/protocols";
import type { Pool } from "pg";

/** The tables the scheduleReplica fixture's handler writes: one row per handler start, one per fire. */
export async function createFireTables(pool: Pool): Promise<void> {
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
