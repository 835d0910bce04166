// Gap-free reading (PgQ-style transaction horizon). Ids and txids are drawn before commit, so a row
// can become visible after rows that sort above it. A reader therefore returns only rows whose
// txid is below its snapshot's xmin: every transaction below that horizon has ended, so that part
// of the log can no longer grow and reading it in (txid, id) order is final.

/** The channel appends wake readers on. */
export const OUTBOX_CHANNEL = "lattice_outbox";

const COLUMNS = "id::text AS id, txid::text AS txid, topic, payload, origin_replica_id, created_at";

// Statements are named, so each connection parses and plans them once: pollers run READ_AFTER on
// every wake-up, and planning its CTEs would cost more than executing them.

/**
 * Inserts one row and, in the same statement, queues one empty notification. NOTIFY takes a global
 * lock at commit and identical notifications of one transaction are coalesced, so it stays tiny;
 * readers treat it as a wake-up only, never as the data.
 */
export const APPEND_EVENT = {
  name: "lattice_outbox_append",
  text: `
  WITH appended AS (
    INSERT INTO lattice_outbox (topic, payload, origin_replica_id)
    VALUES ($1, $2::jsonb, $3)
    RETURNING ${COLUMNS}
  )
  SELECT appended.*, pg_notify('${OUTBOX_CHANNEL}', '')
    FROM appended`,
};

/**
 * Up to $3 rows after the cursor ($1 txid, $2 id) and below the horizon, plus — in the same
 * snapshot — the oldest committed row still waiting above it. Always at least one result row: the
 * page columns are NULL when the page is empty.
 */
export const READ_AFTER = {
  name: "lattice_outbox_read_after",
  text: `
  WITH horizon AS (
    SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin, now() AS read_at
  ),
  waiting AS (
    SELECT min(o.created_at) AS oldest
      FROM lattice_outbox o, horizon h
     WHERE o.txid >= h.xmin
  ),
  page AS (
    SELECT o.id, o.txid, o.topic, o.payload, o.origin_replica_id, o.created_at
      FROM lattice_outbox o, horizon h
     WHERE (o.txid, o.id) > ($1::xid8, $2::bigint)
       AND o.txid < h.xmin
     ORDER BY o.txid, o.id
     LIMIT $3
  )
  SELECT h.read_at, w.oldest AS oldest_waiting,
         page.id::text AS id, page.txid::text AS txid, page.topic, page.payload, page.origin_replica_id, page.created_at
    FROM horizon h
   CROSS JOIN waiting w
    LEFT JOIN page ON true
   ORDER BY page.txid, page.id`,
};

/** The newest row below the horizon: where a reader that replays no history starts. */
export const LATEST_CURSOR = {
  name: "lattice_outbox_latest_cursor",
  text: `
  SELECT txid::text AS txid, id::text AS id
    FROM lattice_outbox
   WHERE txid < pg_snapshot_xmin(pg_current_snapshot())
   ORDER BY txid DESC, id DESC
   LIMIT 1`,
};

/**
 * Deletes rows older than $1 ms by the database clock. Rows above the horizon are kept whatever
 * their age: no reader has passed them yet.
 */
export const PRUNE_OLDER_THAN = {
  name: "lattice_outbox_prune",
  text: `
  DELETE FROM lattice_outbox
   WHERE created_at < now() - $1 * interval '1 millisecond'
     AND txid < pg_snapshot_xmin(pg_current_snapshot())`,
};
