import { SecretKeyring, requireTenantId, requireText, validateA2aPushConfig } from "@axiom-lattice/core";
import type { A2aPushConfig, A2aPushConfigStore, A2aWireVersion } from "@axiom-lattice/protocols";
import { PgStore } from "../db/pgStore";
import type { PgStoreOptions } from "../db/pool";
import { DELETE_A2A_PUSH_CONFIG, GET_A2A_PUSH_CONFIG, LIST_A2A_PUSH_CONFIGS, UPSERT_A2A_PUSH_CONFIG } from "./a2aPushConfigSql";

interface A2aPushConfigRow {
  tenant_id: string;
  task_id: string;
  id: string;
  url: string;
  token: string | null;
  auth_scheme: string | null;
  auth_credentials: string | null;
  wire_version: A2aWireVersion;
  created_at: Date;
}

export interface PostgreSQLA2aPushConfigStoreOptions extends PgStoreOptions {
  /** Seals a configuration's token and credentials before they are written and opens them when read; default: the development key. */
  keyring?: SecretKeyring;
}

/**
 * {@link A2aPushConfigStore} on `lattice_a2a_push_configs`; every statement is scoped to one tenant's
 * task. The token and the credentials are sealed (`token`, `auth_credentials`); a plain-text one reads as it is.
 */
export class PostgreSQLA2aPushConfigStore extends PgStore implements A2aPushConfigStore {
  private readonly keyring: SecretKeyring;

  constructor(options: PostgreSQLA2aPushConfigStoreOptions) {
    super(options);
    this.keyring = options.keyring ?? SecretKeyring.development();
  }

  async put(config: Omit<A2aPushConfig, "createdAt">): Promise<A2aPushConfig> {
    const valid = validateA2aPushConfig(config);
    const seal = (value: string | undefined) => (value === undefined ? null : this.keyring.seal(value));
    const [row] = await this.rows(UPSERT_A2A_PUSH_CONFIG, [
      valid.tenantId,
      valid.taskId,
      valid.id,
      valid.url,
      seal(valid.token),
      valid.authentication?.scheme ?? null,
      seal(valid.authentication?.credentials),
      valid.wireVersion,
    ]);
    return this.toConfig(row);
  }

  async get(tenantId: string, taskId: string, id: string): Promise<A2aPushConfig | null> {
    const [row] = await this.rows(GET_A2A_PUSH_CONFIG, [requireTenantId(tenantId), requireText(taskId, "taskId"), requireText(id, "push config id")]);
    return row ? this.toConfig(row) : null;
  }

  async list(tenantId: string, taskId: string): Promise<A2aPushConfig[]> {
    return (await this.rows(LIST_A2A_PUSH_CONFIGS, [requireTenantId(tenantId), requireText(taskId, "taskId")])).map((row) => this.toConfig(row));
  }

  async delete(tenantId: string, taskId: string, id: string): Promise<boolean> {
    await this.initialize();
    const result = await this.pool.query(DELETE_A2A_PUSH_CONFIG, [requireTenantId(tenantId), requireText(taskId, "taskId"), requireText(id, "push config id")]);
    return (result.rowCount ?? 0) > 0;
  }

  private toConfig(row: A2aPushConfigRow): A2aPushConfig {
    const open = (value: string) => (SecretKeyring.isSealed(value) ? this.keyring.open(value) : value);
    const config: A2aPushConfig = { tenantId: row.tenant_id, taskId: row.task_id, id: row.id, url: row.url, wireVersion: row.wire_version, createdAt: row.created_at };
    if (row.token !== null) config.token = open(row.token);
    if (row.auth_scheme !== null) config.authentication = { scheme: row.auth_scheme, ...(row.auth_credentials === null ? {} : { credentials: open(row.auth_credentials) }) };
    return config;
  }

  private async rows(sql: string, params: unknown[]): Promise<A2aPushConfigRow[]> {
    await this.initialize();
    return (await this.pool.query<A2aPushConfigRow>(sql, params)).rows;
  }
}
