import type { Migration } from "./migration";

// Thread and run lists page by a key that ends with a unique column (a thread's id by code unit, a
// run's queue sequence): these indexes hold the whole key, so a page starts at its cursor in the
// index instead of reading every row before it. They replace the indexes of migrations 1 and 2,
// whose leading columns they keep (the LangGraph search and the latest runs use them alike).
export const threadAndRunPagesMigration: Migration = {
  version: 212,
  name: "lattice_thread_and_run_pages",
  sql: `
    CREATE INDEX lattice_threads_pages ON lattice_threads (tenant_id, created_at DESC, id COLLATE "C" DESC);
    CREATE INDEX lattice_threads_pages_by_assistant ON lattice_threads (tenant_id, assistant_id, created_at DESC, id COLLATE "C" DESC);
    DROP INDEX lattice_threads_by_creation;
    DROP INDEX lattice_threads_by_assistant;

    CREATE INDEX lattice_thread_message_queue_run_pages
      ON lattice_thread_message_queue (thread_id, finished_at, sequence)
      WHERE status = 'completed';
    DROP INDEX lattice_thread_message_queue_runs;
  `,
};
