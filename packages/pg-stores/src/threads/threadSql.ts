// Every statement names its tenant: rows are keyed by (tenant_id, id).

const COLUMNS = "tenant_id, id, assistant_id, metadata, created_at, updated_at";

/** No row when the tenant already has a thread with this id. */
export const INSERT_THREAD = `
  INSERT INTO lattice_threads (tenant_id, id, assistant_id, metadata, created_at, updated_at)
  VALUES ($1, $2, $3, $4::jsonb, now(), now())
  ON CONFLICT (tenant_id, id) DO NOTHING
  RETURNING ${COLUMNS}`;

export const GET_THREAD = `
  SELECT ${COLUMNS}
    FROM lattice_threads
   WHERE tenant_id = $1
     AND id = $2`;

/** $2 assistant (NULL: any), $3 limit, $4 offset; newest first. */
export const LIST_THREADS = `
  SELECT ${COLUMNS}
    FROM lattice_threads
   WHERE tenant_id = $1
     AND ($2::text IS NULL OR assistant_id = $2)
   ORDER BY created_at DESC, id DESC
   LIMIT $3 OFFSET $4`;

/** Merges $3 into the metadata (top-level keys). */
export const UPDATE_THREAD_METADATA = `
  UPDATE lattice_threads
     SET metadata = metadata || $3::jsonb,
         updated_at = now()
   WHERE tenant_id = $1
     AND id = $2
  RETURNING ${COLUMNS}`;

export const DELETE_THREAD = `
  DELETE FROM lattice_threads
   WHERE tenant_id = $1
     AND id = $2`;
