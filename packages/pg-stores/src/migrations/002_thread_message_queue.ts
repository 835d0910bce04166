import type { Migration } from "./migration";

// Completed rows stay as the thread's run records. Queue order comes from a sequence, never from
// max(sequence) + 1, which two concurrent writers would both compute alike.
export const threadMessageQueueMigration: Migration = {
  version: 2,
  name: "lattice_thread_message_queue",
  sql: `
    CREATE SEQUENCE lattice_thread_message_queue_sequence AS bigint;

    CREATE TABLE lattice_thread_message_queue (
      id           text        PRIMARY KEY,
      thread_id    text        NOT NULL,
      tenant_id    text,
      assistant_id text,
      content      jsonb       NOT NULL,
      priority     integer     NOT NULL DEFAULT 0,
      sequence     bigint      NOT NULL,
      status       text        NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'processing', 'completed')),
      run_status   text        NOT NULL DEFAULT 'pending'
                   CHECK (run_status IN ('pending', 'running', 'success', 'error', 'interrupted', 'aborted')),
      replica_id   text,
      started_at   timestamptz,
      finished_at  timestamptz,
      error        text,
      created_at   timestamptz NOT NULL DEFAULT now()
    );

    -- A thread's run records, newest first. Indexes are partial by status throughout: a claim or a
    -- completion then writes entries only into the index of the status it moves the row to.
    CREATE INDEX lattice_thread_message_queue_runs
      ON lattice_thread_message_queue (thread_id, finished_at DESC)
      WHERE status = 'completed';
  `,
};
