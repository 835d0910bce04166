// Every statement names its tenant and task: rows are keyed by (tenant_id, task_id, id).

const COLUMNS = "tenant_id, task_id, id, url, token, auth_scheme, auth_credentials, wire_version, created_at";

/** Sets a configuration; one set again keeps its creation time. */
export const UPSERT_A2A_PUSH_CONFIG = `
  INSERT INTO lattice_a2a_push_configs (tenant_id, task_id, id, url, token, auth_scheme, auth_credentials, wire_version)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
  ON CONFLICT (tenant_id, task_id, id) DO UPDATE
     SET url = EXCLUDED.url,
         token = EXCLUDED.token,
         auth_scheme = EXCLUDED.auth_scheme,
         auth_credentials = EXCLUDED.auth_credentials,
         wire_version = EXCLUDED.wire_version
  RETURNING ${COLUMNS}`;

export const GET_A2A_PUSH_CONFIG = `
  SELECT ${COLUMNS} FROM lattice_a2a_push_configs WHERE tenant_id = $1 AND task_id = $2 AND id = $3`;

/** COLLATE "C" breaks ties by code point, like the in-memory store's insertion order would not: creation times rarely tie. */
export const LIST_A2A_PUSH_CONFIGS = `
  SELECT ${COLUMNS} FROM lattice_a2a_push_configs WHERE tenant_id = $1 AND task_id = $2 ORDER BY created_at, id COLLATE "C"`;

export const DELETE_A2A_PUSH_CONFIG = `
  DELETE FROM lattice_a2a_push_configs WHERE tenant_id = $1 AND task_id = $2 AND id = $3`;
