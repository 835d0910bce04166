import type { Migration } from "./migration";

// Rows are read in (txid, id) order and only below the transaction horizon (see outboxSql.ts), so
// the primary key on (txid, id) is the index every read walks. created_at serves retention.
export const outboxMigration: Migration = {
  version: 187,
  name: "lattice_outbox",
  sql: `
    CREATE TABLE lattice_outbox (
      id                bigserial   NOT NULL,
      txid              xid8        NOT NULL DEFAULT pg_current_xact_id(),
      topic             text        NOT NULL,
      payload           jsonb       NOT NULL,
      origin_replica_id text        NOT NULL,
      created_at        timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (txid, id)
    );

    CREATE INDEX lattice_outbox_created_at ON lattice_outbox (created_at);
  `,
};
