import type { Migration } from "./migration";

// How many times each message was claimed (issue 23): a run of a message claimed before knows it is a
// re-run without reading anything else, so its stream's ids jump past every id an earlier attempt may
// have sent. A message that was claimed, or handed back after streaming, counts as claimed once.
export const queueAttemptsMigration: Migration = {
  version: 201,
  name: "lattice_thread_message_queue_attempts",
  sql: `
    ALTER TABLE lattice_thread_message_queue ADD COLUMN attempts integer NOT NULL DEFAULT 0;
    UPDATE lattice_thread_message_queue q
       SET attempts = 1
     WHERE q.started_at IS NOT NULL
        OR EXISTS (SELECT 1 FROM lattice_run_events e
                    WHERE e.tenant_id = q.tenant_id AND e.assistant_id = q.assistant_id
                      AND e.thread_id = q.thread_id AND e.message_id = q.id);
  `,
};
