import type { Migration } from "./migration";

// Run retention deletes completed rows by age across all threads; the runs index of migration 2
// leads with thread_id, so without this one every prune (on every replica) would scan the table.
// Partial like the others: only a completion writes an entry into it.
export const queueRunRetentionMigration: Migration = {
  version: 188,
  name: "lattice_thread_message_queue_run_retention",
  sql: `
    CREATE INDEX lattice_thread_message_queue_finished
      ON lattice_thread_message_queue (finished_at)
      WHERE status = 'completed';
  `,
};
