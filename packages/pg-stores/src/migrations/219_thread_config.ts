import type { Migration } from "./migration";

// LangGraph's thread config: what a thread's runs' configs merged to. NULL until a run sets it.
export const threadConfigMigration: Migration = {
  version: 219,
  name: "lattice_threads_config",
  sql: `
    ALTER TABLE lattice_threads ADD COLUMN IF NOT EXISTS config jsonb;
  `,
};
