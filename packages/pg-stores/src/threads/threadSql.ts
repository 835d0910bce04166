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

/** The orders a thread list may take; ties are broken by id, compared bytewise as the in-memory store does. */
const THREAD_ORDERS = {
  createdAt: { asc: "created_at ASC, id COLLATE \"C\" ASC", desc: "created_at DESC, id COLLATE \"C\" DESC" },
  updatedAt: { asc: "updated_at ASC, id COLLATE \"C\" ASC", desc: "updated_at DESC, id COLLATE \"C\" DESC" },
  id: { asc: "id COLLATE \"C\" ASC", desc: "id COLLATE \"C\" DESC" },
} as const;

/**
 * $2 assistant, $3 metadata the thread's must contain, $4 ids (each NULL: any), $5 limit, $6 offset;
 * in one of the fixed {@link THREAD_ORDERS}.
 */
export const listThreads = (sortBy: keyof typeof THREAD_ORDERS, sortOrder: "asc" | "desc") => `
  SELECT ${COLUMNS}
    FROM lattice_threads
   WHERE tenant_id = $1
     AND ($2::text IS NULL OR assistant_id = $2)
     AND ($3::jsonb IS NULL OR metadata @> $3::jsonb)
     AND ($4::text[] IS NULL OR id = ANY($4::text[]))
   ORDER BY ${THREAD_ORDERS[sortBy][sortOrder]}
   LIMIT $5 OFFSET $6`;

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
