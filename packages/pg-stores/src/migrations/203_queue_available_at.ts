import type { Migration } from "./migration";

// Delayed messages (LangGraph's `after_seconds`): a pending message is claimable from this time on,
// by the database clock; NULL (every message queued before, and most after) at once.
export const queueAvailableAtMigration: Migration = {
  version: 203,
  name: "lattice_queue_available_at",
  sql: `
    ALTER TABLE lattice_thread_message_queue ADD COLUMN available_at timestamptz;
  `,
};
