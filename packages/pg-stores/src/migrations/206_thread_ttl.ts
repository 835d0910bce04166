import type { Migration } from "./migration";

// LangGraph's thread TTL: a thread with `ttl_minutes` expires that long after it was last used
// (`expires_at`, moved on by every use); the partial index finds what the expiry sweep claims.
export const threadTtlMigration: Migration = {
  version: 206,
  name: "lattice_threads_ttl",
  sql: `
    ALTER TABLE lattice_threads
      ADD COLUMN ttl_minutes double precision,
      ADD COLUMN expires_at  timestamptz;
    CREATE INDEX lattice_threads_expiry ON lattice_threads (expires_at) WHERE expires_at IS NOT NULL;
  `,
};
