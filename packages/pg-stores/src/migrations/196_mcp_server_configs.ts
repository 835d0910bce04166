import type { Migration } from "./migration";

// MCP server configurations, keyed by tenant and key like every record. `config` holds the
// transport settings (no secrets: headers and env are not stored until they can be encrypted).
export const mcpServerConfigsMigration: Migration = {
  version: 196,
  name: "lattice_mcp_server_configs",
  sql: `
    CREATE TABLE lattice_mcp_server_configs (
      tenant_id      text        NOT NULL,
      key            text        NOT NULL,
      config         jsonb       NOT NULL,
      selected_tools text[]      NOT NULL DEFAULT '{}',
      status         text        NOT NULL CHECK (status IN ('connected', 'disconnected', 'error')),
      created_at     timestamptz NOT NULL DEFAULT now(),
      updated_at     timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, key)
    );

    CREATE INDEX lattice_mcp_server_configs_by_creation ON lattice_mcp_server_configs (tenant_id, created_at);
  `,
};
