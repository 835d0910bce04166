import type { Migration } from "./migration";

// Every version of an assistant (LangGraph's assistant versions): each create and update writes one,
// and one can be made current again. `last_version` is the highest number an assistant gave: an update
// takes the next one in the same row update that locks the assistant, so racing updates (on any
// replica) never give one number twice. Assistants stored before keep their current fields as their
// one version (the earlier ones were not kept).
export const assistantVersionsMigration: Migration = {
  version: 205,
  name: "lattice_assistant_versions",
  sql: `
    ALTER TABLE lattice_assistants ADD COLUMN last_version integer;
    UPDATE lattice_assistants SET last_version = version;
    ALTER TABLE lattice_assistants ALTER COLUMN last_version SET DEFAULT 1, ALTER COLUMN last_version SET NOT NULL;

    CREATE TABLE lattice_assistant_versions (
      tenant_id     text        NOT NULL,
      assistant_id  text        NOT NULL,
      version       integer     NOT NULL,
      name          text        NOT NULL,
      graph         text        NOT NULL,
      model         jsonb       NOT NULL,
      system_prompt text,
      tools         text[]      NOT NULL,
      description   text,
      metadata      jsonb       NOT NULL,
      graph_config  jsonb       NOT NULL,
      graph_context jsonb       NOT NULL,
      created_at    timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, assistant_id, version),
      FOREIGN KEY (tenant_id, assistant_id) REFERENCES lattice_assistants (tenant_id, id) ON DELETE CASCADE
    );

    INSERT INTO lattice_assistant_versions
           (tenant_id, assistant_id, version, name, graph, model, system_prompt, tools, description, metadata, graph_config, graph_context, created_at)
    SELECT tenant_id, id, version, name, graph, model, system_prompt, tools, description, metadata, graph_config, graph_context, updated_at
      FROM lattice_assistants;
  `,
};
