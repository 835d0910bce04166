import type { Migration } from "./migration";

// Every run's stream, so any replica replays and follows it (issue 23). Keyed by the run and the index
// its replica gave each event: a re-appended batch is a no-op. logged_at: what retention prunes by.
export const runEventsMigration: Migration = {
  version: 199,
  name: "lattice_run_events",
  sql: `
    CREATE TABLE lattice_run_events (
      tenant_id text NOT NULL,
      assistant_id text NOT NULL,
      thread_id text NOT NULL,
      message_id text NOT NULL,
      event_index integer NOT NULL,
      type text NOT NULL,
      data jsonb,
      logged_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, assistant_id, thread_id, message_id, event_index)
    );
    CREATE INDEX lattice_run_events_logged_at ON lattice_run_events (logged_at);
  `,
};
