// Every statement names its tenant (but the expiry sweep's): rows are keyed by (tenant_id, namespace, key).
// An item whose expires_at has passed is gone for every read, whether or not the sweep removed it.

import { statementFence } from "../coordination/fenceSql";

const COLUMNS = "namespace, key, value, created_at, updated_at";
const LIVE = "(expires_at IS NULL OR expires_at > now())";

const PUT_FENCE = statementFence(6);

/** $6, $7: the fence of the writer's lease tenure (a run's, for a put from its graph); no row: it did not hold. */
export const PUT_ITEM = `
  WITH ${PUT_FENCE.cte}
  INSERT INTO lattice_store_items AS item (tenant_id, namespace, key, value, ttl_minutes, expires_at, created_at, updated_at)
  SELECT $1, $2, $3, $4::jsonb, $5::double precision, now() + $5::double precision * interval '1 minute', now(), now()
   WHERE ${PUT_FENCE.holds}
  ON CONFLICT (tenant_id, namespace, key) DO UPDATE
     SET value = EXCLUDED.value,
         ttl_minutes = EXCLUDED.ttl_minutes,
         expires_at = EXCLUDED.expires_at,
         updated_at = EXCLUDED.updated_at,
         -- An expired item the sweep has not removed yet is gone: this put creates it anew.
         created_at = CASE WHEN item.expires_at <= now() THEN now() ELSE item.created_at END
  RETURNING ${COLUMNS}`;

// Refreshing restarts the time-to-live the row has when it is updated (a put in between may have changed it).
const refreshing = (found: string, flag: string) => `
  refreshed AS (
    UPDATE lattice_store_items item
       SET expires_at = now() + item.ttl_minutes * interval '1 minute'
      FROM ${found}
     WHERE ${flag} AND ${found}.ttl_minutes IS NOT NULL
       AND item.tenant_id = $1 AND item.namespace = ${found}.namespace AND item.key = ${found}.key
  )`;

export const GET_ITEM = `
  WITH found AS (
    SELECT ${COLUMNS}, ttl_minutes
      FROM lattice_store_items
     WHERE tenant_id = $1 AND namespace = $2 AND key = $3 AND ${LIVE}
  ), ${refreshing("found", "$4::boolean")}
  SELECT ${COLUMNS} FROM found`;

const DELETE_FENCE = statementFence(4);

/** $4, $5: the fence of the writer's lease tenure. Answers whether it held, and whether a live item went. */
export const DELETE_ITEM = `
  WITH ${DELETE_FENCE.cte},
  deleted AS (
    DELETE FROM lattice_store_items
     WHERE tenant_id = $1 AND namespace = $2 AND key = $3
       AND ${DELETE_FENCE.holds}
    RETURNING ${LIVE} AS live
  )
  SELECT ${DELETE_FENCE.holds} AS fence_holds, COALESCE((SELECT live FROM deleted), false) AS live`;

// $2 is the prefix; $3 (null when the prefix is empty) bounds it from above, so the primary key's
// (tenant_id, namespace) reads the prefix as one range: every namespace beginning with the prefix
// sorts below the prefix with its last label followed by U+10FFFF; the slice keeps the exact ones.
// $4 is the filter, [field, op, value] triples; $5 the query's words (ASCII-folded, as the strings are).
export const SEARCH_ITEMS = `
  WITH page AS (
    SELECT ${COLUMNS}, ttl_minutes
      FROM lattice_store_items item
     WHERE tenant_id = $1
       AND namespace >= $2::text[] AND ($3::text[] IS NULL OR namespace < $3::text[])
       AND namespace[1:cardinality($2::text[])] = $2::text[]
       AND ${LIVE}
       AND NOT EXISTS (
         SELECT 1 FROM jsonb_array_elements($4::jsonb) AS c
          WHERE NOT COALESCE(CASE c->>1
            WHEN 'eq' THEN item.value -> (c->>0) = c->2
            WHEN 'ne' THEN item.value -> (c->>0) IS DISTINCT FROM c->2
            ELSE jsonb_typeof(item.value -> (c->>0)) = 'number' AND CASE c->>1
              WHEN 'gt' THEN item.value -> (c->>0) > c->2
              WHEN 'gte' THEN item.value -> (c->>0) >= c->2
              WHEN 'lt' THEN item.value -> (c->>0) < c->2
              WHEN 'lte' THEN item.value -> (c->>0) <= c->2
            END
          END, false))
       AND NOT EXISTS (
         SELECT 1 FROM unnest($5::text[]) AS term
          WHERE NOT EXISTS (
            SELECT 1 FROM jsonb_path_query(item.value, 'strict $.**') AS leaf
             WHERE jsonb_typeof(leaf) = 'string'
               AND strpos(translate(leaf #>> '{}', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), term) > 0))
     ORDER BY updated_at DESC, namespace, key
     LIMIT $6 OFFSET $7
  ), ${refreshing("page", "$8::boolean")}
  SELECT ${COLUMNS} FROM page ORDER BY updated_at DESC, namespace, key`;

// A label '*' of $2 (prefix) or $3 (suffix) matches any label; $4 cuts namespaces to a depth (null: whole).
export const LIST_NAMESPACES = `
  SELECT DISTINCT namespace[1:COALESCE($4::int, cardinality(namespace))] AS namespace
    FROM lattice_store_items
   WHERE tenant_id = $1 AND ${LIVE}
     AND cardinality(namespace) >= cardinality($2::text[])
     AND NOT EXISTS (SELECT 1 FROM unnest($2::text[]) WITH ORDINALITY AS p(label, n) WHERE p.label <> '*' AND p.label IS DISTINCT FROM namespace[p.n])
     AND cardinality(namespace) >= cardinality($3::text[])
     AND NOT EXISTS (
       SELECT 1 FROM unnest($3::text[]) WITH ORDINALITY AS s(label, n)
        WHERE s.label <> '*' AND s.label IS DISTINCT FROM namespace[cardinality(namespace) - cardinality($3::text[]) + s.n])
   ORDER BY 1
   LIMIT $5 OFFSET $6`;

// A batch at a time, bounded; SKIP LOCKED: sweeps that overlap take different rows, each removed and counted once.
export const DELETE_EXPIRED_ITEMS = `
  DELETE FROM lattice_store_items
   WHERE (tenant_id, namespace, key) IN (
     SELECT tenant_id, namespace, key FROM lattice_store_items
      WHERE expires_at <= now()
      LIMIT $1
      FOR UPDATE SKIP LOCKED)`;
