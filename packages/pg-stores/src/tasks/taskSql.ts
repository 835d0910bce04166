import { afterCreation } from "../db/pageKeys";

// Every statement names its tenant: rows are keyed by (tenant_id, id). Times are truncated to the
// millisecond (see migration 191). A result is read as JSON text: a JSON null result is kept, SQL NULL
// is no result.

const COLUMNS = `tenant_id, id, owner_type, owner_id, title, description, status, priority, due_date, metadata,
  parent_id, source_id, context, require_review, dependencies, result::text AS result, failure_reason, workspace_id, project_id,
  fencing_token::text AS fencing_token, created_at, updated_at`;

/** $3..$19 are the task's fields in this order, shared by INSERT_TASK and WRITE_TASK. */
const FIELDS = `owner_type, owner_id, title, description, status, priority, due_date, metadata, parent_id, source_id,
  context, require_review, dependencies, result, failure_reason, workspace_id, project_id`;

/**
 * No row when the tenant already has a task with this id. Both stamps read the one statement time
 * (two clock readings could straddle a millisecond): a new task's updatedAt equals its createdAt.
 */
export const INSERT_TASK = `
  INSERT INTO lattice_tasks (tenant_id, id, ${FIELDS}, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13::jsonb, $14, $15::text[], $16::jsonb, $17, $18, $19,
          date_trunc('milliseconds', now()), date_trunc('milliseconds', now()))
  ON CONFLICT (tenant_id, id) DO NOTHING
  RETURNING ${COLUMNS}`;

export const GET_TASK = `
  SELECT ${COLUMNS}
    FROM lattice_tasks
   WHERE tenant_id = $1
     AND id = $2`;

/** The task, locked until the write that reads it commits: its plan is made against this version. */
export const LOCK_TASK = `${GET_TASK}
     FOR UPDATE`;

/**
 * Stores a planned write of a task locked by LOCK_TASK. updated_at moves at least a millisecond past
 * the version read, even within one millisecond or under a clock step back. $20 is the fencing token.
 */
export const WRITE_TASK = `
  UPDATE lattice_tasks
     SET (${FIELDS}) = ($3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13::jsonb, $14, $15::text[], $16::jsonb, $17, $18, $19),
         fencing_token = $20::bigint,
         updated_at = GREATEST(date_trunc('milliseconds', clock_timestamp()), updated_at + interval '1 millisecond')
   WHERE tenant_id = $1
     AND id = $2
  RETURNING ${COLUMNS}`;

/**
 * A page of the tenant's tasks: a NULL filter matches every task. The page starts after the task whose
 * key (core's taskPageKey: creation in epoch microseconds $8, id $9) is given, and reads one task more
 * than the page ($10) to tell whether another follows. Ids order by code unit ("C"), as the in-memory
 * store compares; the row comparison walks the lattice_tasks_listing index.
 */
export const LIST_TASKS = `
  SELECT ${COLUMNS}
    FROM lattice_tasks
   WHERE tenant_id = $1
     AND ($2::text[] IS NULL OR status = ANY($2::text[]))
     AND ($3::text IS NULL OR owner_type = $3)
     AND ($4::text IS NULL OR owner_id = $4)
     AND ($5::text IS NULL OR project_id = $5)
     AND ($6::text IS NULL OR workspace_id = $6)
     AND ($7::text IS NULL OR parent_id = $7)
     AND ${afterCreation("lattice_tasks", "id", 8)}
   ORDER BY created_at, id COLLATE "C"
   LIMIT $10`;

/**
 * A page of every tenant's tasks of the statuses $1, by tenant then id (code unit), after the task
 * ($2, $3) when given (migration 193's index).
 */
export const SCAN_TASKS = `
  SELECT ${COLUMNS}
    FROM lattice_tasks
   WHERE status = ANY($1::text[])
     AND ($2::text IS NULL OR (tenant_id COLLATE "C", id COLLATE "C") > ($2::text COLLATE "C", $3::text COLLATE "C"))
   ORDER BY tenant_id COLLATE "C", id COLLATE "C"
   LIMIT $4`;

/** A NULL `$3` deletes whatever the status; a list, only while the status is in it. */
export const DELETE_TASK = `
  DELETE FROM lattice_tasks
   WHERE tenant_id = $1
     AND id = $2
     AND ($3::text[] IS NULL OR status = ANY($3::text[]))`;
