import type { Migration } from "./migration";

// task_id is unique across tenants (the scheduler addresses a fire by task id alone); every listing
// filters by tenant through the (tenant_id, created_at) index. Claims and settlements match one row
// by primary key; stale-run recovery scans running rows by updated_at.
export const scheduledTasksMigration: Migration = {
  version: 3,
  name: "lattice_scheduled_tasks",
  sql: `
    CREATE TABLE lattice_scheduled_tasks (
      task_id         text        PRIMARY KEY,
      tenant_id       text        NOT NULL,
      task_type       text        NOT NULL,
      payload         jsonb       NOT NULL DEFAULT '{}',
      execution_type  text        NOT NULL CHECK (execution_type IN ('once', 'cron')),
      execute_at      timestamptz,
      next_run_at     timestamptz,
      cron_expression text,
      timezone        text,
      catch_up        text        NOT NULL CHECK (catch_up IN ('once', 'skip')),
      status          text        NOT NULL
                      CHECK (status IN ('pending', 'running', 'paused', 'completed', 'cancelled', 'failed')),
      run_count       integer     NOT NULL DEFAULT 0,
      max_runs        integer,
      retry_count     integer     NOT NULL DEFAULT 0,
      max_retries     integer     NOT NULL DEFAULT 0,
      last_run_at     timestamptz,
      last_error      text,
      assistant_id    text,
      thread_id       text,
      created_at      timestamptz NOT NULL DEFAULT now(),
      updated_at      timestamptz NOT NULL DEFAULT now()
    );

    CREATE INDEX lattice_scheduled_tasks_by_tenant ON lattice_scheduled_tasks (tenant_id, created_at);
    CREATE INDEX lattice_scheduled_tasks_by_status ON lattice_scheduled_tasks (status, updated_at);
  `,
};
