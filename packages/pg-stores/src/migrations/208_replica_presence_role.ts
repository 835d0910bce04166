import type { Migration } from "./migration";

// What each replica does (AXIOM_ROLE), for GET /api/cluster. Rows of replicas announced before it
// were every one of them `all`, the only kind there was.
export const replicaPresenceRoleMigration: Migration = {
  version: 208,
  name: "lattice_replica_presence_role",
  sql: `
    ALTER TABLE lattice_replica_presence
      ADD COLUMN role text NOT NULL DEFAULT 'all' CHECK (role IN ('all', 'api', 'worker'));
  `,
};
