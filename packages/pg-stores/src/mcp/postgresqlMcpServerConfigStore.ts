import {
  RecordExistsError,
  SecretKeyring,
  keepStoredMcpSecrets,
  requireMcpServerKey,
  requireTenantId,
  validateCreateMcpServerConfig,
  validateUpdateMcpServerConfig,
} from "@axiom-lattice/core";
import type {
  CreateMcpServerConfigRequest,
  McpServerConfig,
  McpServerConfigEntry,
  McpServerConfigStore,
  McpServerStatus,
  Page,
  PageRequest,
  UpdateMcpServerConfigRequest,
} from "@axiom-lattice/protocols";
import type { Pool, PoolClient } from "pg";
import { readCreationPage } from "../db/pageKeys";
import { PgStore } from "../db/pgStore";
import type { PgStoreOptions } from "../db/pool";
import { inTransaction } from "../db/transaction";
import {
  DELETE_MCP_SERVER_CONFIG,
  GET_MCP_SERVER_CONFIG,
  INSERT_MCP_SERVER_CONFIG,
  LIST_CONNECTED_MCP_SERVER_CONFIGS,
  LIST_MCP_SERVER_CONFIGS,
  LOCK_MCP_SERVER_CONFIG,
  UPDATE_MCP_SERVER_CONFIG,
} from "./mcpServerConfigSql";

interface McpServerConfigRow {
  tenant_id: string;
  key: string;
  config: McpServerConfig;
  selected_tools: string[];
  status: McpServerStatus;
  created_at: Date;
  updated_at: Date;
}

/** The secret parts of a configuration: every value is sealed at rest. */
const SECRET_FIELDS = ["headers", "env"] as const;

const mapSecrets = (config: McpServerConfig, map: (value: string) => string): McpServerConfig => {
  const mapped = { ...config };
  for (const field of SECRET_FIELDS) {
    const entries = config[field];
    if (entries) mapped[field] = Object.fromEntries(Object.entries(entries).map(([name, value]) => [name, map(value)]));
  }
  return mapped;
};

export interface PostgreSQLMcpServerConfigStoreOptions extends PgStoreOptions {
  /** Seals header and env values before they are written and opens them when read; default: the development key. */
  keyring?: SecretKeyring;
}

/**
 * {@link McpServerConfigStore} on `lattice_mcp_server_configs`; every statement is scoped to one tenant.
 * Header and env values are sealed inside the `config` jsonb; a plain-text one reads as it is.
 */
export class PostgreSQLMcpServerConfigStore extends PgStore implements McpServerConfigStore {
  private readonly keyring: SecretKeyring;

  constructor(options: PostgreSQLMcpServerConfigStoreOptions) {
    super(options);
    this.keyring = options.keyring ?? SecretKeyring.development();
  }

  async list(tenantId: string, page: PageRequest): Promise<Page<McpServerConfigEntry>> {
    const tenant = requireTenantId(tenantId);
    const read = async (after: (string | null)[], fetch: number) => {
      await this.initialize();
      return (await this.pool.query<McpServerConfigRow & { created_us: string }>(LIST_MCP_SERVER_CONFIGS, [tenant, ...after, fetch])).rows;
    };
    return readCreationPage(page, read, (row) => row.key, (row) => this.toEntry(row));
  }

  async get(tenantId: string, key: string): Promise<McpServerConfigEntry | null> {
    const [row] = await this.rows(GET_MCP_SERVER_CONFIG, [requireTenantId(tenantId), requireMcpServerKey(key)]);
    return row ? this.toEntry(row) : null;
  }

  async create(tenantId: string, request: CreateMcpServerConfigRequest): Promise<McpServerConfigEntry> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateMcpServerConfig(request);
    const config = JSON.stringify(this.sealed(valid.config));
    const [row] = await this.rows(INSERT_MCP_SERVER_CONFIG, [tenant, valid.key, config, valid.selectedTools, valid.status]);
    if (!row) throw new RecordExistsError("mcp-config", tenant, valid.key);
    return this.toEntry(row);
  }

  async update(tenantId: string, key: string, request: UpdateMcpServerConfigRequest): Promise<McpServerConfigEntry | null> {
    const scope = [requireTenantId(tenantId), requireMcpServerKey(key)];
    const update = validateUpdateMcpServerConfig(request);
    const write = async (client: Pool | PoolClient, config: McpServerConfig | null) => {
      const params = [...scope, config && JSON.stringify(config), update.selectedTools ?? null, update.status ?? null];
      const [row] = (await client.query<McpServerConfigRow>(UPDATE_MCP_SERVER_CONFIG, params)).rows;
      return row ? this.toEntry(row) : null;
    };
    await this.initialize();
    const next = update.config;
    if (next === undefined) return write(this.pool, null);
    // Secrets the new configuration omits are kept: merged under a row lock so a concurrent write is not lost.
    return inTransaction(this.pool, async (client) => {
      const [stored] = (await client.query<Pick<McpServerConfigRow, "config">>(LOCK_MCP_SERVER_CONFIG, scope)).rows;
      return stored ? write(client, keepStoredMcpSecrets(this.sealed(next), stored.config)) : null;
    });
  }

  async delete(tenantId: string, key: string): Promise<boolean> {
    const params = [requireTenantId(tenantId), requireMcpServerKey(key)];
    await this.initialize();
    return (await this.pool.query(DELETE_MCP_SERVER_CONFIG, params)).rowCount === 1;
  }

  async listConnected(): Promise<McpServerConfigEntry[]> {
    return (await this.rows(LIST_CONNECTED_MCP_SERVER_CONFIGS, [])).map((row) => this.toEntry(row));
  }

  private sealed(config: McpServerConfig): McpServerConfig {
    return mapSecrets(config, (value) => this.keyring.seal(value));
  }

  private toEntry(row: McpServerConfigRow): McpServerConfigEntry {
    return {
      tenantId: row.tenant_id,
      key: row.key,
      config: mapSecrets(row.config, (value) => (SecretKeyring.isSealed(value) ? this.keyring.open(value) : value)),
      selectedTools: row.selected_tools,
      status: row.status,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }

  private async rows(sql: string, params: unknown[]): Promise<McpServerConfigRow[]> {
    await this.initialize();
    return (await this.pool.query<McpServerConfigRow>(sql, params)).rows;
  }
}
