import type { Migration } from "./migration";

// Each tenant's long-term memory (the LangGraph store). Labels and keys compare by code point
// (COLLATE "C"), as the in-memory store orders them. The primary key's (tenant_id, namespace) serves
// namespace-prefix searches as a range; the partial index finds what the expiry sweep removes.
export const storeItemsMigration: Migration = {
  version: 204,
  name: "lattice_store_items",
  sql: `
    CREATE TABLE lattice_store_items (
      tenant_id   text        NOT NULL,
      namespace   text[]      COLLATE "C" NOT NULL CHECK (cardinality(namespace) > 0),
      key         text        COLLATE "C" NOT NULL,
      value       jsonb       NOT NULL,
      ttl_minutes double precision,
      expires_at  timestamptz,
      created_at  timestamptz NOT NULL DEFAULT now(),
      updated_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, namespace, key)
    );
    CREATE INDEX lattice_store_items_expiry ON lattice_store_items (expires_at) WHERE expires_at IS NOT NULL;
  `,
};
