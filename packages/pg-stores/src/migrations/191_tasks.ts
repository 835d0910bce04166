import type { Migration } from "./migration";

// Tasks, keyed per tenant. Times are kept to the millisecond (a JavaScript Date's precision), so the
// updated_at a caller read back names exactly one version for a compare-and-set. fencing_token is
// the highest lease token a write carried; a write under an older one is refused.
export const tasksMigration: Migration = {
  version: 191,
  name: "lattice_tasks",
  sql: `
    CREATE TABLE lattice_tasks (
      tenant_id      text        NOT NULL,
      id             text        NOT NULL CHECK (length(id) BETWEEN 1 AND 128),
      owner_type     text        NOT NULL CHECK (owner_type IN ('user', 'agent')),
      owner_id       text        NOT NULL,
      title          text        NOT NULL,
      description    text,
      status         text        NOT NULL CHECK (status IN ('pending', 'in_progress', 'review', 'failed', 'interrupted', 'completed', 'cancelled')),
      priority       integer     NOT NULL,
      due_date       timestamptz,
      metadata       jsonb,
      parent_id      text,
      source_id      text,
      context        jsonb,
      require_review boolean,
      dependencies   text[],
      result         jsonb,
      failure_reason text,
      workspace_id   text,
      project_id     text,
      fencing_token  bigint      CHECK (fencing_token >= 0),
      created_at     timestamptz NOT NULL,
      updated_at     timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE INDEX lattice_tasks_listing ON lattice_tasks (tenant_id, created_at, id COLLATE "C");
    CREATE INDEX lattice_tasks_project ON lattice_tasks (tenant_id, project_id, created_at) WHERE project_id IS NOT NULL;
    CREATE INDEX lattice_tasks_parent ON lattice_tasks (tenant_id, parent_id) WHERE parent_id IS NOT NULL;
    CREATE INDEX lattice_tasks_owner ON lattice_tasks (tenant_id, owner_id, status);
  `,
};
