import type { Migration } from "./migration";

export const leasesMigration: Migration = {
  version: 185,
  name: "lattice_leases",
  sql: `
    CREATE SEQUENCE lattice_lease_tokens AS bigint;

    CREATE TABLE lattice_leases (
      key         text        PRIMARY KEY,
      holder      text        NOT NULL,
      token       bigint      NOT NULL,
      acquired_at timestamptz NOT NULL,
      renewed_at  timestamptz NOT NULL,
      expires_at  timestamptz NOT NULL
    );
  `,
};
