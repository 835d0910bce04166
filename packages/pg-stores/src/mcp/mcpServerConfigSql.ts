import { afterCreation, createdMicrosColumn } from "../db/pageKeys";

// Every statement names its tenant: rows are keyed by (tenant_id, key).

const COLUMNS = "tenant_id, key, config, selected_tools, status, created_at, updated_at";

/** No row when the tenant already has a configuration with this key. */
export const INSERT_MCP_SERVER_CONFIG = `
  INSERT INTO lattice_mcp_server_configs (tenant_id, key, config, selected_tools, status, created_at, updated_at)
  VALUES ($1, $2, $3::jsonb, $4::text[], $5, now(), now())
  ON CONFLICT (tenant_id, key) DO NOTHING
  RETURNING ${COLUMNS}`;

export const GET_MCP_SERVER_CONFIG = `
  SELECT ${COLUMNS}
    FROM lattice_mcp_server_configs
   WHERE tenant_id = $1
     AND key = $2`;

/**
 * A page of the tenant's configurations, oldest first: the $4 after the one created at $2 (epoch
 * microseconds) with key $3, from the first when $2 is NULL. Keys compare COLLATE "C", as the index does.
 */
export const LIST_MCP_SERVER_CONFIGS = `
  SELECT ${COLUMNS},
         ${createdMicrosColumn("lattice_mcp_server_configs")}
    FROM lattice_mcp_server_configs
   WHERE tenant_id = $1
     AND ${afterCreation("lattice_mcp_server_configs", "key", 2)}
   ORDER BY created_at, key COLLATE "C"
   LIMIT $4`;

export const LIST_CONNECTED_MCP_SERVER_CONFIGS = `
  SELECT ${COLUMNS}
    FROM lattice_mcp_server_configs
   WHERE status = 'connected'
   ORDER BY tenant_id, created_at, key`;

/** The stored configuration, locked until the update that merges into it commits. */
export const LOCK_MCP_SERVER_CONFIG = `
  SELECT config
    FROM lattice_mcp_server_configs
   WHERE tenant_id = $1
     AND key = $2
     FOR UPDATE`;

/** A NULL parameter keeps the column as it is. */
export const UPDATE_MCP_SERVER_CONFIG = `
  UPDATE lattice_mcp_server_configs
     SET config = COALESCE($3::jsonb, config),
         selected_tools = COALESCE($4::text[], selected_tools),
         status = COALESCE($5, status),
         updated_at = now()
   WHERE tenant_id = $1
     AND key = $2
  RETURNING ${COLUMNS}`;

export const DELETE_MCP_SERVER_CONFIG = `
  DELETE FROM lattice_mcp_server_configs
   WHERE tenant_id = $1
     AND key = $2`;
