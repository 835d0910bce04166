import type { Migration } from "./migration";

// Keyed by (tenant_id, id): an id names a record only within its tenant, and every query filters by
// tenant, so no lookup can reach across tenants.
export const threadsAssistantsMigration: Migration = {
  version: 1,
  name: "lattice_threads_assistants",
  sql: `
    CREATE TABLE lattice_assistants (
      tenant_id     text        NOT NULL,
      id            text        NOT NULL,
      name          text        NOT NULL,
      graph         text        NOT NULL,
      model         jsonb       NOT NULL,
      system_prompt text,
      tools         text[]      NOT NULL DEFAULT '{}',
      created_at    timestamptz NOT NULL DEFAULT now(),
      updated_at    timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id)
    );

    CREATE INDEX lattice_assistants_by_creation ON lattice_assistants (tenant_id, created_at);

    CREATE TABLE lattice_threads (
      tenant_id    text        NOT NULL,
      id           text        NOT NULL,
      assistant_id text        NOT NULL,
      metadata     jsonb       NOT NULL DEFAULT '{}',
      created_at   timestamptz NOT NULL DEFAULT now(),
      updated_at   timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id)
    );

    CREATE INDEX lattice_threads_by_creation ON lattice_threads (tenant_id, created_at DESC);
    CREATE INDEX lattice_threads_by_assistant ON lattice_threads (tenant_id, assistant_id, created_at DESC);
  `,
};
