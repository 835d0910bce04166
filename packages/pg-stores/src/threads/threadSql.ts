import { epochMicros, fromEpochMicros } from "../db/pageKeys";

// Every statement names its tenant: rows are keyed by (tenant_id, id).

/** A thread row as `toThread` reads it. */
export const COLUMNS = "tenant_id, id, assistant_id, metadata, created_at, updated_at, ttl_minutes, config";

/** When a thread with this TTL (minutes, or NULL), used now, expires. */
const expiryAfter = (ttlMinutes: string) => `now() + ${ttlMinutes} * interval '1 minute'`;

/** $5 its TTL in minutes (NULL: none). No row when the tenant already has a thread with this id. */
export const INSERT_THREAD = `
  INSERT INTO lattice_threads (tenant_id, id, assistant_id, metadata, created_at, updated_at, ttl_minutes, expires_at)
  VALUES ($1, $2, $3, $4::jsonb, now(), now(), $5::double precision, ${expiryAfter("$5::double precision")})
  ON CONFLICT (tenant_id, id) DO NOTHING
  RETURNING ${COLUMNS}`;

export const GET_THREAD = `
  SELECT ${COLUMNS}
    FROM lattice_threads
   WHERE tenant_id = $1
     AND id = $2`;

/**
 * A page of the tenant's threads, newest first: $2 assistant (NULL: any); $3 and $4 the key of the
 * previous page's last thread (creation in epoch microseconds, id; NULL: from the newest); $5 how many.
 * Each row carries its creation time's microseconds, the key a page ends with.
 */
export const LIST_THREADS = `
  SELECT ${COLUMNS}, ${epochMicros("created_at")} AS created_us
    FROM lattice_threads
   WHERE tenant_id = $1
     AND ($2::text IS NULL OR assistant_id = $2)
     AND ($3::bigint IS NULL OR (created_at, id COLLATE "C") < (${fromEpochMicros("$3")}, $4::text))
   ORDER BY created_at DESC, id COLLATE "C" DESC
   LIMIT $5`;

/**
 * Merges $3 into the metadata (top-level keys); $4 a new TTL in minutes (NULL: the same); $5 the new
 * config (NULL: the same). The TTL restarts.
 */
export const UPDATE_THREAD = `
  UPDATE lattice_threads
     SET metadata = metadata || $3::jsonb,
         config = coalesce($5::jsonb, config),
         updated_at = now(),
         ttl_minutes = coalesce($4::double precision, ttl_minutes),
         expires_at = ${expiryAfter("coalesce($4::double precision, ttl_minutes)")}
   WHERE tenant_id = $1
     AND id = $2
  RETURNING ${COLUMNS}`;

/** The thread was used: its TTL restarts. No row without one. */
export const TOUCH_THREAD = `
  UPDATE lattice_threads
     SET expires_at = ${expiryAfter("ttl_minutes")}
   WHERE tenant_id = $1
     AND id = $2
     AND ttl_minutes IS NOT NULL`;

/**
 * Claims up to $1 expired threads of every tenant for $2 milliseconds, the longest expired first.
 * Rows another claim holds locked are skipped, and a row it claimed first no longer matches when
 * re-read: one claim at a time gets each thread.
 */
export const CLAIM_EXPIRED_THREADS = `
  UPDATE lattice_threads AS thread
     SET expires_at = now() + $2 * interval '1 millisecond'
    FROM (SELECT tenant_id, id
            FROM lattice_threads
           WHERE expires_at <= now()
           ORDER BY expires_at
           LIMIT $1
             FOR UPDATE SKIP LOCKED) AS expired
   WHERE thread.tenant_id = expired.tenant_id
     AND thread.id = expired.id
     AND thread.expires_at <= now()
  RETURNING ${COLUMNS.split(", ").map((column) => `thread.${column}`).join(", ")}`;

export const DELETE_THREAD = `
  DELETE FROM lattice_threads
   WHERE tenant_id = $1
     AND id = $2`;
