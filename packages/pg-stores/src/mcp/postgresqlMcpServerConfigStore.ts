import { RecordExistsError, requireMcpServerKey, requireTenantId, validateCreateMcpServerConfig, validateUpdateMcpServerConfig } from "@axiom-lattice/core";
import type {
  CreateMcpServerConfigRequest,
  McpServerConfig,
  McpServerConfigEntry,
  McpServerConfigStore,
  McpServerStatus,
  UpdateMcpServerConfigRequest,
} from "@axiom-lattice/protocols";
import { PgStore } from "../db/pgStore";
import { DELETE_MCP_SERVER_CONFIG, GET_MCP_SERVER_CONFIG, INSERT_MCP_SERVER_CONFIG, LIST_CONNECTED_MCP_SERVER_CONFIGS, LIST_MCP_SERVER_CONFIGS, UPDATE_MCP_SERVER_CONFIG } from "./mcpServerConfigSql";

interface McpServerConfigRow {
  tenant_id: string;
  key: string;
  config: McpServerConfig;
  selected_tools: string[];
  status: McpServerStatus;
  created_at: Date;
  updated_at: Date;
}

const toEntry = (row: McpServerConfigRow): McpServerConfigEntry => ({
  tenantId: row.tenant_id,
  key: row.key,
  config: row.config,
  selectedTools: row.selected_tools,
  status: row.status,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** {@link McpServerConfigStore} on `lattice_mcp_server_configs`; every statement is scoped to one tenant. */
export class PostgreSQLMcpServerConfigStore extends PgStore implements McpServerConfigStore {
  async getAll(tenantId: string): Promise<McpServerConfigEntry[]> {
    return (await this.rows(LIST_MCP_SERVER_CONFIGS, [requireTenantId(tenantId)])).map(toEntry);
  }

  async get(tenantId: string, key: string): Promise<McpServerConfigEntry | null> {
    const [row] = await this.rows(GET_MCP_SERVER_CONFIG, [requireTenantId(tenantId), requireMcpServerKey(key)]);
    return row ? toEntry(row) : null;
  }

  async create(tenantId: string, request: CreateMcpServerConfigRequest): Promise<McpServerConfigEntry> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateMcpServerConfig(request);
    const [row] = await this.rows(INSERT_MCP_SERVER_CONFIG, [tenant, valid.key, JSON.stringify(valid.config), valid.selectedTools, valid.status]);
    if (!row) throw new RecordExistsError("mcp-config", tenant, valid.key);
    return toEntry(row);
  }

  async update(tenantId: string, key: string, request: UpdateMcpServerConfigRequest): Promise<McpServerConfigEntry | null> {
    const scope = [requireTenantId(tenantId), requireMcpServerKey(key)];
    const update = validateUpdateMcpServerConfig(request);
    const [row] = await this.rows(UPDATE_MCP_SERVER_CONFIG, [
      ...scope,
      update.config === undefined ? null : JSON.stringify(update.config),
      update.selectedTools ?? null,
      update.status ?? null,
    ]);
    return row ? toEntry(row) : null;
  }

  async delete(tenantId: string, key: string): Promise<boolean> {
    const params = [requireTenantId(tenantId), requireMcpServerKey(key)];
    await this.initialize();
    return (await this.pool.query(DELETE_MCP_SERVER_CONFIG, params)).rowCount === 1;
  }

  async listConnected(): Promise<McpServerConfigEntry[]> {
    return (await this.rows(LIST_CONNECTED_MCP_SERVER_CONFIGS, [])).map(toEntry);
  }

  private async rows(sql: string, params: unknown[]): Promise<McpServerConfigRow[]> {
    await this.initialize();
    return (await this.pool.query<McpServerConfigRow>(sql, params)).rows;
  }
}
