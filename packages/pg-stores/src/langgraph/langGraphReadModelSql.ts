import { COLUMNS as MESSAGE_COLUMNS, IN_QUEUE } from "../queue/messageQueueSql";
import { COLUMNS as THREAD_COLUMNS } from "../threads/threadSql";

// The LangGraph API's reads of the thread and queue tables: every statement names its tenant.

/** The orders a thread search may take; ties are broken by id, compared bytewise as the in-memory store does. */
const THREAD_ORDERS = {
  createdAt: { asc: "created_at ASC, id COLLATE \"C\" ASC", desc: "created_at DESC, id COLLATE \"C\" DESC" },
  updatedAt: { asc: "updated_at ASC, id COLLATE \"C\" ASC", desc: "updated_at DESC, id COLLATE \"C\" DESC" },
  id: { asc: "id COLLATE \"C\" ASC", desc: "id COLLATE \"C\" DESC" },
} as const;

/**
 * $2 assistant, $3 metadata the thread's must contain, $4 ids (each NULL: any), $5 limit, $6 offset;
 * in one of the fixed {@link THREAD_ORDERS}.
 */
export const searchThreads = (sortBy: keyof typeof THREAD_ORDERS, sortOrder: "asc" | "desc") => `
  SELECT ${THREAD_COLUMNS}
    FROM lattice_threads
   WHERE tenant_id = $1
     AND ($2::text IS NULL OR assistant_id = $2)
     AND ($3::jsonb IS NULL OR metadata @> $3::jsonb)
     AND ($4::text[] IS NULL OR id = ANY($4::text[]))
   ORDER BY ${THREAD_ORDERS[sortBy][sortOrder]}
   LIMIT $5 OFFSET $6`;

/** $4 limit: the latest runs, returned oldest first. */
export const LATEST_RUNS = `
  SELECT *
    FROM (SELECT ${MESSAGE_COLUMNS}
            FROM lattice_thread_message_queue
           WHERE ${IN_QUEUE}
             AND status = 'completed'
           ORDER BY finished_at DESC, sequence DESC
           LIMIT $4) AS latest
   ORDER BY finished_at, sequence`;
