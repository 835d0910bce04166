import type { RunEvent } from "@axiom-lattice/protocols";
import { statementFence } from "../coordination/fenceSql";

// Every statement names the run's tenant, assistant and thread: the primary key's prefix.

export const RUN_EVENTS_CHANNEL = "lattice_run_events";

const APPEND_FENCE = statementFence(10);

// One round trip per batch: the insert, and the wake-up of every replica's followers ($8, $9). The
// notification is sent at commit, so a follower it wakes reads the rows. $10, $11: the fence of the
// running replica's tenure of the thread's run lease: a paused attempt's events never follow the
// next attempt's. Answers whether the fence held.
export const APPEND_RUN_EVENTS = `
  WITH ${APPEND_FENCE.cte},
  inserted AS (
    INSERT INTO lattice_run_events (tenant_id, assistant_id, thread_id, message_id, event_index, type, data)
    SELECT $1, $2, $3, $4, event.event_index, event.type, event.data
      FROM unnest($5::int[], $6::text[], $7::jsonb[]) AS event(event_index, type, data)
     WHERE ${APPEND_FENCE.holds}
    ON CONFLICT DO NOTHING
  )
  SELECT ${APPEND_FENCE.holds} AS fence_holds,
         CASE WHEN ${APPEND_FENCE.holds} THEN pg_notify($8, $9) END AS notified`;

/** Events as the three arrays an insert unnests: indexes (`int[]`), types (`text[]`), data as JSON (`jsonb[]`). */
export const runEventArrays = (events: RunEvent[]): [number[], string[], string[]] => [
  events.map((event) => event.index),
  events.map((event) => event.type),
  events.map((event) => JSON.stringify(event.data ?? null)),
];

export const READ_RUN_EVENTS = `
  SELECT event_index, type, data
    FROM lattice_run_events
   WHERE tenant_id = $1 AND assistant_id = $2 AND thread_id = $3 AND message_id = $4 AND event_index > $5::bigint
   ORDER BY event_index
   LIMIT $6`;

export const LAST_RUN_EVENT_INDEX = `
  SELECT COALESCE(max(event_index), -1) AS last_index
    FROM lattice_run_events
   WHERE tenant_id = $1 AND assistant_id = $2 AND thread_id = $3 AND message_id = $4`;

export const DELETE_RUN_EVENTS = `
  DELETE FROM lattice_run_events
   WHERE tenant_id = $1 AND assistant_id = $2 AND thread_id = $3 AND message_id = $4`;

export const DELETE_THREAD_RUN_EVENTS = `
  DELETE FROM lattice_run_events
   WHERE tenant_id = $1 AND assistant_id = $2 AND thread_id = $3`;

export const PRUNE_RUN_EVENTS = `
  DELETE FROM lattice_run_events
   WHERE logged_at < now() - $1 * interval '1 millisecond'`;
