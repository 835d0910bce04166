import { afterCreation, createdMicrosColumn } from "../db/pageKeys";

// Every decision about who runs a fire is one conditional UPDATE whose row count says who won, and
// every age is judged by the database clock (now()), never by a replica's.

const COLUMNS = `
  task_id, tenant_id, task_type, payload, execution_type, execute_at, next_run_at, cron_expression,
  timezone, catch_up, status, run_count, max_runs, retry_count, max_retries, last_run_at, last_error,
  assistant_id, thread_id, created_at, updated_at`;

// The scheduled time of the task's current fire; with task_id it identifies the fire.
const FIRE_AT = "CASE execution_type WHEN 'cron' THEN next_run_at ELSE execute_at END";

const FINISHED = "('completed', 'cancelled', 'failed')";

/** Inserts a new task; no row comes back when the task id is taken. */
export const INSERT_TASK = `
  INSERT INTO lattice_scheduled_tasks (
    task_id, tenant_id, task_type, payload, execution_type, execute_at, next_run_at, cron_expression,
    timezone, catch_up, status, run_count, max_runs, retry_count, max_retries, last_run_at, last_error,
    assistant_id, thread_id)
  VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
  ON CONFLICT (task_id) DO NOTHING
  RETURNING ${COLUMNS}`;

export const SELECT_TASK = `
  SELECT ${COLUMNS}
    FROM lattice_scheduled_tasks
   WHERE task_id = $1`;

/** Tasks of tenant $1 (every tenant when NULL) that also meet `condition`, oldest first. */
const listWhere = (condition: string) => `
  SELECT ${COLUMNS}
    FROM lattice_scheduled_tasks
   WHERE ($1::text IS NULL OR tenant_id = $1)
     AND ${condition}
   ORDER BY created_at, task_id COLLATE "C"`;

export const LIST_ACTIVE = listWhere("status IN ('pending', 'running')");
export const LIST_BY_TYPE = listWhere("task_type = $2");
export const LIST_BY_STATUS = listWhere("status = $2");
export const LIST_BY_ASSISTANT = listWhere("assistant_id = $2");
export const LIST_BY_THREAD = listWhere("thread_id = $2");

/**
 * A page of the tasks of tenant $1 (every tenant when NULL), oldest first, after the task created at
 * $2 (epoch microseconds: a timestamptz is finer than a JS Date) with id $3; from the start when $2
 * is NULL. Reads $4 rows: one more than the page, to tell whether another follows.
 */
export const LIST_PAGE = `
  SELECT ${COLUMNS},
         ${createdMicrosColumn("lattice_scheduled_tasks")}
    FROM lattice_scheduled_tasks
   WHERE ($1::text IS NULL OR tenant_id = $1)
     AND ${afterCreation("lattice_scheduled_tasks", "task_id", 2)}
   ORDER BY created_at, task_id COLLATE "C"
   LIMIT $4`;

export const COUNT_TASKS = `
  SELECT count(*)::int AS count
    FROM lattice_scheduled_tasks
   WHERE ($1::text IS NULL OR tenant_id = $1)`;

export const DELETE_TASK = `
  DELETE FROM lattice_scheduled_tasks
   WHERE task_id = $1`;

export const DELETE_OLD_TASKS = `
  DELETE FROM lattice_scheduled_tasks
   WHERE status IN ${FINISHED}
     AND updated_at < now() - $1 * interval '1 millisecond'`;

/** `SET column = $2, …` for the given assignments (column names come from a fixed map, never input). */
export const updateTask = (assignments: string[]) => `
  UPDATE lattice_scheduled_tasks
     SET ${assignments.join(",\n         ")},
         updated_at = now()
   WHERE task_id = $1`;

/** pending → running, for the fire scheduled at $2 when $2 is given. */
export const CLAIM_RUN = `
  UPDATE lattice_scheduled_tasks
     SET status = 'running',
         updated_at = now()
   WHERE task_id = $1
     AND status = 'pending'
     AND ($2::timestamptz IS NULL OR ${FIRE_AT} = $2)`;

export const HEARTBEAT_RUN = `
  UPDATE lattice_scheduled_tasks
     SET updated_at = now()
   WHERE task_id = $1
     AND status = 'running'`;

/**
 * Records the outcome of the fire claimed at $2. A pause or cancel made during the run keeps its
 * status; NULL leaves an optional field as it was.
 */
export const SETTLE_RUN = `
  UPDATE lattice_scheduled_tasks
     SET status      = CASE WHEN status = 'running' THEN $3 ELSE status END,
         run_count   = $4,
         retry_count = $5,
         next_run_at = COALESCE($6, next_run_at),
         execute_at  = COALESCE($7, execute_at),
         last_run_at = COALESCE($8, last_run_at),
         last_error  = COALESCE($9, last_error),
         updated_at  = now()
   WHERE task_id = $1
     AND status IN ('running', 'paused', 'cancelled')
     AND ${FIRE_AT} = $2`;

/** running → pending for tasks whose heartbeat (updated_at) stopped $1 ms ago; returns their ids. */
export const REQUEUE_STALE_RUNNING = `
  UPDATE lattice_scheduled_tasks
     SET status = 'pending',
         updated_at = now()
   WHERE status = 'running'
     AND updated_at < now() - $1 * interval '1 millisecond'
  RETURNING task_id`;
