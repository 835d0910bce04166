import type { Migration } from "./migration";

// A tenant's queued messages are counted at every add that bounds them (AXIOM_TENANT_MAX_QUEUED_MESSAGES):
// this index answers the count from the tenant's open rows alone, however many run records the table
// holds. Keyed like the id index of 189 (COALESCE: "no tenant" is one key too).
export const queueTenantOpenMigration: Migration = {
  version: 198,
  name: "lattice_thread_message_queue_tenant_open",
  sql: `
    CREATE INDEX lattice_thread_message_queue_tenant_open
      ON lattice_thread_message_queue (COALESCE(tenant_id, ''))
      WHERE status IN ('pending', 'processing');
  `,
};
