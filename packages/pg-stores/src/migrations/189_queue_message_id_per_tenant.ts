import type { Migration } from "./migration";

// Message ids are chosen by clients, so they are unique within a tenant only: a global key let one
// tenant learn (from DUPLICATE_MESSAGE) and squat the ids another uses. tenant_id is nullable (a
// strict scope may have no tenant) and NULLs never collide in a unique index, so the key is on
// COALESCE(tenant_id, ''); the CHECK keeps '' meaning "no tenant" alone (the stores refuse an empty
// tenant id anyway). UNIQUE NULLS NOT DISTINCT would say the same but needs PostgreSQL 15; 13 is
// supported. id leads the key, so a completion or renewal, which names a claim by id and owner
// without its tenant, still finds it through this index. The primary key moves to sequence, which
// the queue's sequence hands out once (negated at the head).
export const queueMessageIdPerTenantMigration: Migration = {
  version: 189,
  name: "lattice_thread_message_queue_id_per_tenant",
  sql: `
    ALTER TABLE lattice_thread_message_queue
      ADD CONSTRAINT lattice_thread_message_queue_tenant_id_check CHECK (tenant_id <> '');

    CREATE UNIQUE INDEX lattice_thread_message_queue_id_per_tenant
      ON lattice_thread_message_queue (id, COALESCE(tenant_id, ''));

    ALTER TABLE lattice_thread_message_queue
      DROP CONSTRAINT lattice_thread_message_queue_pkey,
      ADD PRIMARY KEY (sequence);
  `,
};
