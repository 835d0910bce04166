import type { Migration } from "./migration";

// What the LangGraph-compatible API keeps with an assistant: its description and metadata, a version
// every update increments, and LangGraph's config and context beyond the graph's own settings.
export const assistantGraphFieldsMigration: Migration = {
  version: 202,
  name: "lattice_assistant_graph_fields",
  sql: `
    ALTER TABLE lattice_assistants
      ADD COLUMN description text,
      ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}',
      ADD COLUMN version integer NOT NULL DEFAULT 1,
      ADD COLUMN graph_config jsonb NOT NULL DEFAULT '{}',
      ADD COLUMN graph_context jsonb NOT NULL DEFAULT '{}';
  `,
};
