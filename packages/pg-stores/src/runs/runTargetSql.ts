import { COLUMNS as THREAD_COLUMNS } from "../threads/threadSql";

/**
 * Whether tenant $1 has assistant $2, and its thread $3 (NULL columns when it has none): always one
 * row, both looked up by primary key.
 */
export const FIND_RUN_TARGET = `
  SELECT EXISTS (
           SELECT 1
             FROM lattice_assistants
            WHERE tenant_id = $1
              AND id = $2
         ) AS assistant_found,
         ${THREAD_COLUMNS}
    FROM (VALUES (1)) AS one
    LEFT JOIN lattice_threads
      ON tenant_id = $1
     AND id = $3`;
