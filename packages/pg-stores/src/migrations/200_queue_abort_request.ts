import type { Migration } from "./migration";

// Run control from any replica (issue 23): the control record of an abort, on the message whose run
// it stops, so it survives the restart of the replica running it and reaches whichever holds the claim
// next. Nullable without a default: adding it rewrites nothing, and no index is needed (it is read
// with its row, found by id or through the processing index).
export const queueAbortRequestMigration: Migration = {
  version: 200,
  name: "lattice_thread_message_queue_abort_request",
  sql: `
    ALTER TABLE lattice_thread_message_queue ADD COLUMN abort_requested_at timestamptz;
  `,
};
