import type { Migration } from "./migration";

export const queueClaimMigration: Migration = {
  version: 186,
  name: "lattice_thread_message_queue_claim",
  sql: `
    ALTER TABLE lattice_thread_message_queue
      ADD COLUMN locked_by        text,
      ADD COLUMN locked_at        timestamptz,
      ADD COLUMN lease_expires_at timestamptz;

    -- The claim reads a thread's pending rows in claim order and stops at its limit.
    CREATE INDEX lattice_thread_message_queue_claim
      ON lattice_thread_message_queue (thread_id, priority DESC, sequence)
      WHERE status = 'pending';

    -- A thread's claims, and the expired ones the sweep and reclaim look for.
    CREATE INDEX lattice_thread_message_queue_claims
      ON lattice_thread_message_queue (thread_id, lease_expires_at)
      WHERE status = 'processing';
  `,
};
