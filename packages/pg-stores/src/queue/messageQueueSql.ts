import { statementFence } from "../coordination/fenceSql";
import { epochMicros, fromEpochMicros } from "../db/pageKeys";
import { RUN_EVENTS_CHANNEL } from "../runs/runEventSql";

// Leases are judged by the database clock (now()) so replicas with skewed clocks agree. A queue is a
// thread's rows within one strict scope: an absent tenant or assistant matches only NULL.

// sequence stays bigint (node-postgres reads it as a decimal string) so every ORDER BY is numeric.
export const COLUMNS = `
  id, thread_id, tenant_id, assistant_id, content, priority, sequence, status, created_at,
  locked_by, locked_at, lease_expires_at, run_status, attempts, replica_id, started_at, finished_at, error,
  abort_requested_at, available_at`;

// "IS NOT DISTINCT FROM", spelled out: the planner folds each pair to `= value` or `IS NULL` once the
// parameters are known, and estimates both well; for `IS NOT DISTINCT FROM NULL` it guesses one row
// and trades the claim index's order for a sort of the whole thread.
const SAME_TENANT = "(tenant_id = $2::text OR (tenant_id IS NULL AND $2::text IS NULL))";
const SAME_ASSISTANT = "(assistant_id = $3::text OR (assistant_id IS NULL AND $3::text IS NULL))";

/** $1 thread, $2 tenant, $3 assistant. */
export const IN_QUEUE = `
  thread_id = $1
  AND ${SAME_TENANT}
  AND ${SAME_ASSISTANT}`;

const CLAIM_ORDER = "priority DESC, sequence";

/** A pending row a claim may take: not delayed, or due by the database clock. */
const DUE = "(available_at IS NULL OR available_at <= now())";

type Assignments = Record<string, string>;

/**
 * Clears a claim and its run start, leaving the row where it was in the queue; a row whose abort was
 * requested is completed as aborted instead (`error`: the parameter of its error text), since
 * whoever releases a claim takes it over. One assignment per column, each judged on the row as it is
 * when locked: an abort request committed just before is applied, never lost between two statements.
 */
const releasedClaim = (error: string): Assignments => ({
  status: "CASE WHEN abort_requested_at IS NULL THEN 'pending' ELSE 'completed' END",
  run_status: "CASE WHEN abort_requested_at IS NULL THEN 'pending' ELSE 'aborted' END",
  error: `CASE WHEN abort_requested_at IS NULL THEN error ELSE ${error} END`,
  finished_at: "CASE WHEN abort_requested_at IS NULL THEN NULL ELSE now() END",
  replica_id: "CASE WHEN abort_requested_at IS NULL THEN NULL ELSE replica_id END",
  started_at: "CASE WHEN abort_requested_at IS NULL THEN NULL ELSE started_at END",
  locked_by: "NULL",
  locked_at: "NULL",
  lease_expires_at: "NULL",
});

/** A row claimed under owner $4's lease of $5 ms, run by replica $6. */
const CLAIMED_ROW: Assignments = {
  status: "'processing'",
  locked_by: "$4",
  locked_at: "now()",
  lease_expires_at: "now() + $5 * interval '1 millisecond'",
  run_status: "'running'",
  attempts: "attempts + 1",
  replica_id: "$6",
  started_at: "now()",
};

/** A SET list: `column = value`, one per line. */
const set = (assignments: Assignments) =>
  Object.entries(assignments)
    .map(([column, value]) => `${column} = ${value}`)
    .join(",\n           ");

/** {@link releasedClaim} with its error text in $4. */
const RELEASE_CLAIM = set(releasedClaim("$4"));

/** A statement every connection prepares once: the hot path then skips parsing and may reuse its plan. */
export interface PreparedStatement {
  name: string;
  text: string;
}

/**
 * Adds a message unless the thread is at capacity (then no row), in one round trip: the function of
 * migration 230 refuses, with $11, a missing assistant (SQLSTATE LQ002) or thread of it (LQ003); then
 * migration 229's takes the tenant's lock and counts (with $10, the tenant's bound; LQ001 at it),
 * takes the thread's lock, then counts and inserts. $1 thread, $2 tenant, $3 assistant, $4 id, $5
 * content, $6 priority, $7 capacity (the smaller of the store's and the add's own), $8 at head: ahead
 * of every pending row, with at least the highest pending priority; $9 delay in ms (0: claimable at
 * once).
 */
export const ENQUEUE_MESSAGE: PreparedStatement = {
  name: "lattice_queue_enqueue",
  text: `
  SELECT ${COLUMNS}
    FROM lattice_enqueue_message($1, $2, $3, $4, $5::jsonb, $6::integer, $7::integer, $8::boolean, $9::integer, $10::integer, $11::boolean)`,
};

/** What the enqueue function raises when the tenant's bound is reached. */
export const TENANT_QUEUE_FULL = "LQ001";

/** What it raises for an add with `requireTarget` when the tenant has no such assistant. */
export const TARGET_ASSISTANT_MISSING = "LQ002";

/** …and when the tenant has no such thread of that assistant. */
export const TARGET_THREAD_MISSING = "LQ003";

const CLAIM_FENCE = statementFence(8);

type ClaimLock = "skip" | "wait";

/** `columns` of the thread's first $7 due pending rows, in claim order, locked while the claim's fence holds. */
const firstDue = (columns: string, lock: ClaimLock) => `
    SELECT ${columns}
      FROM lattice_thread_message_queue
     WHERE ${IN_QUEUE}
       AND status = 'pending'
       AND ${DUE}
       AND ${CLAIM_FENCE.holds}
     ORDER BY ${CLAIM_ORDER}
     LIMIT $7
       FOR UPDATE${lock === "skip" ? " SKIP LOCKED" : ""}`;

/**
 * Moves up to $7 pending rows to processing under owner $4's lease of $5 ms, run by replica $6, while
 * the fence $8, $9 (the thread-run lease's tenure) holds: a CTE named `claimed`, after the fence's.
 * The rows are locked once and passed as an array so the planner cannot re-run the locking subquery
 * per row; by sequence, the primary key, because an id is unique only within its tenant. It returns
 * only what the caller does not already know (the claim's own values come from its arguments): fewer
 * columns to decode per claim.
 *
 * Unfenced claimers may race on one thread: they skip rows locked by others (SKIP LOCKED), taking
 * disjoint rows. A fenced claim is the thread's only claimer, and waits instead: a row locked by
 * someone else is one a stale tenure's statement still holds (an UPDATE whose re-check failed keeps
 * the row locked until it ends), and skipping it would run the next message first.
 */
const claimed = (lock: ClaimLock) => `
  claimed AS (
    UPDATE lattice_thread_message_queue
       SET ${set(CLAIMED_ROW)}
     WHERE sequence = ANY(ARRAY(${firstDue("sequence", lock)}))
    RETURNING id, content, priority, sequence, created_at, locked_at, lease_expires_at, attempts, available_at
  )`;

/** A claiming statement in both forms: `unfenced` skips rows others lock, `fenced` waits for them. */
export interface ClaimStatement {
  unfenced: PreparedStatement;
  fenced: PreparedStatement;
}

const claimStatement = (name: string, text: (lock: ClaimLock) => string): ClaimStatement => ({
  unfenced: { name, text: text("skip") },
  fenced: { name: `${name}_fenced`, text: text("wait") },
});

/**
 * A claim's answer, `also` the columns before the claimed rows: every answer has a row saying whether
 * the fence held, so a refused claim is told from an empty queue (whose one row has no message).
 */
const claimAnswer = (also: string) => `
  SELECT ${CLAIM_FENCE.holds} AS fence_holds, ${also}claimed.*
    FROM (SELECT) AS statement
    LEFT JOIN claimed ON true
   ORDER BY ${CLAIM_ORDER}`;

/** $1 thread, $2 tenant, $3 assistant, then the claim's parameters (see {@link claimed}). */
export const CLAIM_MESSAGES = claimStatement(
  "lattice_queue_claim",
  (lock) => `
  WITH ${CLAIM_FENCE.cte},${claimed(lock)}${claimAnswer("")}`,
);

/** Per column: {@link CLAIMED_ROW}'s value on the row `chosen` names, `released`'s on the others (a column either leaves alone stays). */
const chosenOrReleased = (released: Assignments): Assignments =>
  Object.fromEntries(
    [...new Set([...Object.keys(CLAIMED_ROW), ...Object.keys(released)])].map((column) => [
      column,
      `CASE WHEN chosen.sequence IS NOT NULL THEN ${CLAIMED_ROW[column] ?? column} ELSE ${released[column] ?? column} END`,
    ]),
  );

/**
 * RESET_PROCESSING, then CLAIM_MESSAGES' fenced claim, in one statement ($1–$9 as the claim's, $10
 * the error of a flagged row, completed as aborted): what a new tenure does first. A statement cannot
 * update a row twice, so the rows are chosen first, from the thread as it stands: the earlier holders'
 * claims (`stale`) and the first due pending rows; the first `$7` of those, in claim order and leaving
 * out any whose abort was requested, are claimed (as `claimed` claims, column for column); every
 * other stale row is released as RELEASE_CLAIM releases it ({@link chosenOrReleased}). Both locks
 * wait, as a fenced claim's do. Answers whether the fence held, how many claims were taken back, and
 * the claimed rows (one row with a NULL id when none).
 */
export const TAKE_BACK_AND_CLAIM: PreparedStatement = {
  name: "lattice_queue_take_back_and_claim",
  text: `
  WITH ${CLAIM_FENCE.cte},
  stale AS MATERIALIZED (
    SELECT sequence, priority, abort_requested_at IS NULL AS claimable
      FROM lattice_thread_message_queue
     WHERE ${IN_QUEUE}
       AND status = 'processing'
       AND ${CLAIM_FENCE.holds}
       FOR UPDATE
  ),
  due AS MATERIALIZED (${firstDue("sequence, priority", "wait")}
  ),
  chosen AS MATERIALIZED (
    SELECT sequence
      FROM (SELECT sequence, priority FROM stale WHERE claimable
            UNION ALL
            SELECT sequence, priority FROM due) AS candidates
     ORDER BY ${CLAIM_ORDER}
     LIMIT $7
  ),
  changed AS (
    UPDATE lattice_thread_message_queue
       SET ${set(chosenOrReleased(releasedClaim("$10")))}
      FROM (SELECT sequence FROM stale UNION SELECT sequence FROM chosen) AS touched
      LEFT JOIN chosen ON chosen.sequence = touched.sequence
     WHERE lattice_thread_message_queue.sequence = touched.sequence
    RETURNING status, id, content, priority, lattice_thread_message_queue.sequence, created_at, locked_at, lease_expires_at, attempts, available_at
  ),
  claimed AS (
    SELECT id, content, priority, sequence, created_at, locked_at, lease_expires_at, attempts, available_at
      FROM changed
     WHERE status = 'processing'
  )
  SELECT ${CLAIM_FENCE.holds} AS fence_holds, (SELECT count(*) FROM stale)::integer AS reclaimed, claimed.*
    FROM (SELECT) AS statement
    LEFT JOIN claimed ON true
   ORDER BY ${CLAIM_ORDER}`,
};

/** $4: the error of a flagged row, completed as aborted. */
export const RECLAIM_EXPIRED = `
  UPDATE lattice_thread_message_queue
     SET ${RELEASE_CLAIM}
   WHERE ${IN_QUEUE}
     AND status = 'processing'
     AND lease_expires_at <= now()`;

const RESET_FENCE = statementFence(5);

/**
 * $4: the error of a flagged row, completed as aborted; $5, $6: the fence of the thread-run lease's
 * new tenure, which takes the claims back only while it holds. Answers whether it held and how many
 * claims it released.
 */
export const RESET_PROCESSING = `
  WITH ${RESET_FENCE.cte},
  released AS (
    UPDATE lattice_thread_message_queue
       SET ${RELEASE_CLAIM}
     WHERE ${IN_QUEUE}
       AND status = 'processing'
       AND ${RESET_FENCE.holds}
    RETURNING 1
  )
  SELECT ${RESET_FENCE.holds} AS fence_holds, (SELECT count(*) FROM released)::integer AS released`;

/**
 * Flags the thread's processing rows for abort (the first request's time is kept) and returns them,
 * in claim order. Their holders apply it.
 */
export const REQUEST_THREAD_ABORT = `
  WITH flagged AS (
    UPDATE lattice_thread_message_queue
       SET abort_requested_at = COALESCE(abort_requested_at, now())
     WHERE ${IN_QUEUE}
       AND status = 'processing'
    RETURNING ${COLUMNS}
  )
  SELECT * FROM flagged ORDER BY ${CLAIM_ORDER}`;

/**
 * Requests the abort of message $4 of the thread ($5: the error text): a processing row is flagged, a
 * pending one (it never ran; nobody holds a claim to apply it) completed as aborted at once; returns
 * the row as it is after. The CASEs are judged on the row once locked: a claim that took it
 * meanwhile makes it a flagged processing row, never a run completed under its claimer. No row: the
 * message is completed already (or not the thread's), which the store then reads.
 */
export const REQUEST_MESSAGE_ABORT = `
  UPDATE lattice_thread_message_queue
     SET abort_requested_at = COALESCE(abort_requested_at, now()),
         status = CASE WHEN status = 'pending' THEN 'completed' ELSE status END,
         run_status = CASE WHEN status = 'pending' THEN 'aborted' ELSE run_status END,
         error = CASE WHEN status = 'pending' THEN $5 ELSE error END,
         finished_at = CASE WHEN status = 'pending' THEN now() ELSE finished_at END
   WHERE id = $4
     AND ${IN_QUEUE}
     AND status IN ('pending', 'processing')
  RETURNING ${COLUMNS}`;

/**
 * Deletes message $4 of the thread unless a claim holds it. A claim locks the rows it takes (SKIP
 * LOCKED skips one this locks first), and this re-checks the status on a row a claim changed
 * meanwhile: either the row is deleted and never claimed, or claimed and kept. No row: it is
 * processing, or not the thread's, which the store then reads.
 */
export const DELETE_MESSAGE = `
  DELETE FROM lattice_thread_message_queue
   WHERE id = $4
     AND ${IN_QUEUE}
     AND status IN ('pending', 'completed')
  RETURNING ${COLUMNS}`;

// A claim is named by id and owner, without its tenant: an owner claims within one tenant, whose ids
// are unique, so the pair names at most one row, found through the id index of migration 189.

/** $1 ids, $2 owner, $3 lease ms: extends only the owner's live claims. */
export const RENEW_CLAIMS = `
  UPDATE lattice_thread_message_queue
     SET lease_expires_at = now() + $3 * interval '1 millisecond'
   WHERE id = ANY($1::text[])
     AND status = 'processing'
     AND locked_by = $2
     AND lease_expires_at > now()`;

/** Completes a claimed row with run status `status` and error `error` (parameters). */
const COMPLETION = (status: string, error: string) => `
  status = 'completed',
  run_status = ${status},
  error = ${error},
  finished_at = now(),
  locked_by = NULL,
  locked_at = NULL,
  lease_expires_at = NULL`;

/** The claim of message `id` held by `owner` (parameters), found through the id index. */
const HELD_BY = (id: string, owner: string) => `
  id = ${id}
  AND status = 'processing'
  AND locked_by = ${owner}`;

/**
 * Completion of message `id` held by `owner` with run status `status` and error `error`, and the run's
 * last events (parameters `events`, `events`+1, `events`+2: indexes, types, data) logged with it, only
 * for a row it completed: the CTEs `completed` (the row's run) and `logged`. Whoever reads the events
 * then finds the run completed, and a refused completion logs none.
 */
const completedAndLogged = (id: string, owner: string, status: string, error: string, events: number) => `
  completed AS (
    UPDATE lattice_thread_message_queue
       SET ${COMPLETION(status, error)}
     WHERE ${HELD_BY(id, owner)}
    RETURNING tenant_id, assistant_id, thread_id, id
  ),
  logged AS (
    INSERT INTO lattice_run_events (tenant_id, assistant_id, thread_id, message_id, event_index, type, data)
    SELECT completed.tenant_id, completed.assistant_id, completed.thread_id, completed.id, event.event_index, event.type, event.data
      FROM completed,
           unnest($${events}::int[], $${events + 1}::text[], $${events + 2}::jsonb[]) AS event(event_index, type, data)
    ON CONFLICT DO NOTHING
  )`;

/** Wakes the run's followers on every replica, as an append to the run event log does, when the completion logged events. */
const followersWoken = (events: number) => `
  CASE WHEN cardinality($${events}::int[]) > 0
       THEN pg_notify('${RUN_EVENTS_CHANNEL}', json_build_object('tenantId', tenant_id, 'assistantId', assistant_id, 'threadId', thread_id, 'messageId', id)::text)
  END`;

/** $1 id, $2 owner, $3 run status, $4 error, $5–$7 events: only while the owner still holds the claim. One row if it did. */
export const COMPLETE_MESSAGE: PreparedStatement = {
  name: "lattice_queue_complete",
  text: `
  WITH ${completedAndLogged("$1", "$2", "$3", "$4", 5)}
  SELECT ${followersWoken(5)} AS followers_woken
    FROM completed`,
};

/**
 * Completes message $10 held by owner $4 with run status $11 and error $12, logging events $13–$15,
 * and claims the thread's next as {@link CLAIM_MESSAGES} does ($1–$9), in one statement: one commit
 * between a thread's runs. Each part keeps its own check (the owner's claim; the fence). Both see the
 * statement's snapshot, in which the completed row is still processing: the claim never takes it, nor
 * touches the same row.
 */
export const COMPLETE_AND_CLAIM = claimStatement(
  "lattice_queue_complete_and_claim",
  (lock) => `
  WITH ${CLAIM_FENCE.cte},${completedAndLogged("$10", "$4", "$11", "$12", 13)},${claimed(lock)}${claimAnswer(
    `EXISTS (SELECT FROM completed) AS completed, (SELECT ${followersWoken(13)} FROM completed) AS followers_woken, `,
  )}`,
);

/** $1 id, $2 tenant, $3 assistant. */
export const GET_MESSAGE = `
  SELECT ${COLUMNS}
    FROM lattice_thread_message_queue
   WHERE id = $1
     AND ${SAME_TENANT}
     AND ${SAME_ASSISTANT}`;

/**
 * $1, $2: the lease released first (key, holder); then the thread's pending rows, as LIST_BY_STATUS
 * reads them, by the function of migration 231: its read's snapshot is taken after the release.
 */
export const RELEASE_LEASE_THEN_PENDING = `
  SELECT ${COLUMNS}
    FROM lattice_release_lease_then_pending($1, $2, $3, $4, $5)`;

/** $4 status. */
export const LIST_BY_STATUS = `
  SELECT ${COLUMNS}
    FROM lattice_thread_message_queue
   WHERE ${IN_QUEUE}
     AND status = $4
   ORDER BY ${CLAIM_ORDER}`;

export const QUEUE_SIZE = `
  SELECT ((SELECT count(*) FROM lattice_thread_message_queue WHERE ${IN_QUEUE} AND status = 'pending')
       + (SELECT count(*) FROM lattice_thread_message_queue WHERE ${IN_QUEUE} AND status = 'processing'))::integer AS size`;

export const THREADS_WITH_WORK = `
  SELECT thread_id, tenant_id, assistant_id,
         sum(pending)::integer AS pending_count,
         sum(expired)::integer AS expired_count,
         floor(extract(epoch FROM now() - min(since)) * 1000)::bigint AS waited_ms
    FROM (SELECT thread_id, tenant_id, assistant_id, 1 AS pending, 0 AS expired,
                 greatest(created_at, available_at) AS since
            FROM lattice_thread_message_queue
           WHERE status = 'pending'
             AND ${DUE}
          UNION ALL
          SELECT thread_id, tenant_id, assistant_id, 0, 1, lease_expires_at
            FROM lattice_thread_message_queue
           WHERE status = 'processing'
             AND lease_expires_at <= now()) AS work
   GROUP BY thread_id, tenant_id, assistant_id
   ORDER BY waited_ms DESC, thread_id`;

/**
 * A page of the thread's runs, oldest first: $4 and $5 the key of the previous page's last run (when
 * it finished, in epoch microseconds; its sequence; NULL: from the oldest); $6 how many. Each row
 * carries its finish time's microseconds, the key a page ends with.
 */
export const LIST_RUNS = `
  SELECT ${COLUMNS}, ${epochMicros("finished_at")} AS finished_us
    FROM lattice_thread_message_queue
   WHERE ${IN_QUEUE}
     AND status = 'completed'
     AND ($4::bigint IS NULL OR (finished_at, sequence) > (${fromEpochMicros("$4")}, $5::bigint))
   ORDER BY finished_at, sequence
   LIMIT $6`;

export const CLEAR_PENDING = `
  DELETE FROM lattice_thread_message_queue
   WHERE ${IN_QUEUE}
     AND status = 'pending'`;

/**
 * Every message of the thread, whatever its status. The status arms are spelled out so each is
 * answered by its status's partial index (a bitmap OR), instead of a scan of the whole table.
 */
export const DELETE_THREAD_MESSAGES = `
  DELETE FROM lattice_thread_message_queue
   WHERE ${IN_QUEUE}
     AND (status = 'pending' OR status = 'processing' OR status = 'completed')`;

/** $1 ms: run records that finished longer ago than that, by the database clock (index of 188). */
export const PRUNE_RUNS = `
  DELETE FROM lattice_thread_message_queue
   WHERE status = 'completed'
     AND finished_at < now() - $1 * interval '1 millisecond'`;
