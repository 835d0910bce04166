import type { Migration } from "./migration";

// One row per replica id, replaced by each announcement (GET /api/cluster). Not a lease: presence is
// not exclusive, and a replica restarted under its id must show at once, not after the old row lapses.
export const replicaPresenceMigration: Migration = {
  version: 190,
  name: "lattice_replica_presence",
  sql: `
    CREATE TABLE lattice_replica_presence (
      replica_id    text        PRIMARY KEY,
      version       text        NOT NULL,
      started_at    timestamptz NOT NULL,
      store_mode    text        NOT NULL CHECK (store_mode IN ('memory', 'postgresql')),
      active_runs   integer     NOT NULL CHECK (active_runs >= 0),
      outbox_cursor text,
      outbox_lag_ms integer     NOT NULL CHECK (outbox_lag_ms >= 0),
      last_seen_at  timestamptz NOT NULL,
      expires_at    timestamptz NOT NULL
    );
  `,
};
