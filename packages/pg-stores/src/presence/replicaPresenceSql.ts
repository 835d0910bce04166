// Presence is judged by the database clock (now()), so replicas with skewed clocks agree on who lapsed.

const COLUMNS = "replica_id, version, started_at, store_mode, role, active_runs, outbox_cursor, outbox_lag_ms, key_versions, last_seen_at, expires_at";

/**
 * Replaces the replica's announcement, present for $9 ms from now. Rows of other replicas that
 * lapsed more than $10 ms ago are deleted on the way: ids such as `hostname:pid` never come back.
 */
export const ANNOUNCE_PRESENCE = `
  WITH forgotten AS (
    DELETE FROM lattice_replica_presence
     WHERE replica_id <> $1 AND expires_at < now() - $10 * interval '1 millisecond'
  )
  INSERT INTO lattice_replica_presence AS presence (${COLUMNS})
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $11, now(), now() + $9 * interval '1 millisecond')
  ON CONFLICT (replica_id) DO UPDATE
     SET version       = excluded.version,
         started_at    = excluded.started_at,
         store_mode    = excluded.store_mode,
         role          = excluded.role,
         active_runs   = excluded.active_runs,
         outbox_cursor = excluded.outbox_cursor,
         outbox_lag_ms = excluded.outbox_lag_ms,
         key_versions  = excluded.key_versions,
         last_seen_at  = excluded.last_seen_at,
         expires_at    = excluded.expires_at
  RETURNING ${COLUMNS}`;

export const LIST_PRESENT = `
  SELECT ${COLUMNS}
    FROM lattice_replica_presence
   WHERE expires_at > now()
   ORDER BY replica_id COLLATE "C"`;

export const WITHDRAW_PRESENCE = `
  DELETE FROM lattice_replica_presence
   WHERE replica_id = $1`;
