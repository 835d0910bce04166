import type { Migration } from "./migration";

// Orphan recovery pages through the tasks of one status across every tenant, by tenant then id
// (by code unit, as the in-memory store compares): this index serves that keyset scan.
export const taskScanMigration: Migration = {
  version: 193,
  name: "lattice_tasks_scan",
  sql: `
    CREATE INDEX lattice_tasks_scan ON lattice_tasks (status, tenant_id COLLATE "C", id COLLATE "C");
  `,
};
