import type { Migration } from "./migration";

// Projects and their bots, keyed by tenant like every record: an id names a project only within its
// tenant. A membership belongs to its project (deleted with it); the assistant is not a foreign key,
// since assistants may be defined outside the store.
export const projectsMigration: Migration = {
  version: 192,
  name: "lattice_projects",
  sql: `
    CREATE TABLE lattice_projects (
      tenant_id   text        NOT NULL,
      id          text        NOT NULL,
      name        text        NOT NULL,
      description text,
      metadata    jsonb,
      created_at  timestamptz NOT NULL DEFAULT now(),
      updated_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id)
    );

    CREATE INDEX lattice_projects_by_creation ON lattice_projects (tenant_id, created_at);

    CREATE TABLE lattice_project_bots (
      tenant_id    text        NOT NULL,
      project_id   text        NOT NULL,
      assistant_id text        NOT NULL,
      created_at   timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, project_id, assistant_id),
      FOREIGN KEY (tenant_id, project_id) REFERENCES lattice_projects (tenant_id, id) ON DELETE CASCADE
    );

    CREATE INDEX lattice_project_bots_by_assistant ON lattice_project_bots (tenant_id, assistant_id);
  `,
};
