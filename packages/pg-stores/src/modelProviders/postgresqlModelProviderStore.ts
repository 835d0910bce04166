import {
  type PageKey,
  RecordExistsError,
  type SecretKeyring,
  requireEnabledFlag,
  requireKeyForNewDestination,
  requireModelName,
  requireModelProviderId,
  requireTenantId,
  validateCreateModelProvider,
  validateDiscoveredModels,
  validateUpdateModelProvider,
} from "@axiom-lattice/core";
import type {
  CreateModelProviderRequest,
  DiscoveryRecord,
  ModelProvider,
  ModelProviderCredentials,
  ModelProviderKind,
  ModelProviderStore,
  Page,
  PageRequest,
  ProviderModel,
  UpdateModelProviderRequest,
} from "@axiom-lattice/protocols";
import { readCreationPage, readPage } from "../db/pageKeys";
import { PgStore } from "../db/pgStore";
import type { PgStoreOptions } from "../db/pool";
import { inTransaction } from "../db/transaction";
import {
  DELETE_MODEL_PROVIDER,
  GET_MODEL_PROVIDER,
  GET_PROVIDER_MODEL,
  INSERT_MODEL_PROVIDER,
  LIST_MODEL_PROVIDERS,
  LIST_PROVIDER_MODELS,
  LOCK_MODEL_PROVIDER,
  LOCK_PROVIDER_FOR_DISCOVERY,
  MARK_VANISHED_MODELS,
  SET_MODEL_ENABLED,
  UPDATE_MODEL_PROVIDER,
  UPSERT_DISCOVERED_MODELS,
} from "./modelProviderSql";

interface ModelProviderRow {
  tenant_id: string;
  id: string;
  kind: ModelProviderKind;
  base_url: string | null;
  models: string[];
  enabled: boolean;
  api_key_sealed: string | null;
  created_at: Date;
  updated_at: Date;
}

interface ProviderModelRow {
  provider_id: string;
  model: string;
  enabled: boolean;
  available: boolean;
  discovered_at: Date;
  last_seen_at: Date;
}

const toProviderModel = (row: ProviderModelRow): ProviderModel => ({
  providerId: row.provider_id,
  model: row.model,
  enabled: row.enabled,
  available: row.available,
  discoveredAt: row.discovered_at,
  lastSeenAt: row.last_seen_at,
});

export interface PostgreSQLModelProviderStoreOptions extends PgStoreOptions {
  /** Seals API keys before they are written and opens them when a run reads them. */
  keyring: SecretKeyring;
}

/** {@link ModelProviderStore} on `lattice_model_providers`; API keys are stored sealed only. */
export class PostgreSQLModelProviderStore extends PgStore implements ModelProviderStore {
  private readonly keyring: SecretKeyring;

  constructor(options: PostgreSQLModelProviderStoreOptions) {
    super(options);
    this.keyring = options.keyring;
  }

  async createProvider(tenantId: string, request: CreateModelProviderRequest): Promise<ModelProvider> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateModelProvider(request);
    const [row] = await this.rows(INSERT_MODEL_PROVIDER, [
      tenant,
      valid.id,
      valid.kind,
      valid.baseUrl ?? null,
      valid.models,
      valid.apiKey === undefined ? null : this.keyring.seal(valid.apiKey),
      valid.enabled,
    ]);
    if (!row) throw new RecordExistsError("model provider", tenant, valid.id);
    return this.view(row);
  }

  async getProvider(tenantId: string, providerId: string): Promise<ModelProvider | null> {
    const [row] = await this.rows(GET_MODEL_PROVIDER, [requireTenantId(tenantId), requireModelProviderId(providerId)]);
    return row ? this.view(row) : null;
  }

  async listProviders(tenantId: string, page: PageRequest): Promise<Page<ModelProvider>> {
    const tenant = requireTenantId(tenantId);
    const read = async (after: (string | null)[], fetch: number) => {
      await this.initialize();
      return (await this.pool.query<ModelProviderRow & { created_us: string }>(LIST_MODEL_PROVIDERS, [tenant, ...after, fetch])).rows;
    };
    return readCreationPage(page, read, (row) => row.id, (row) => this.view(row));
  }

  async updateProvider(tenantId: string, providerId: string, request: UpdateModelProviderRequest): Promise<ModelProvider | null> {
    const key = [requireTenantId(tenantId), requireModelProviderId(providerId)];
    const update = validateUpdateModelProvider(request);
    await this.initialize();
    // Planned against the locked row: a concurrent change of destination cannot slip in between.
    return inTransaction(this.pool, async (client) => {
      const [stored] = (await client.query<{ kind: ModelProviderKind; base_url: string | null; has_api_key: boolean }>(LOCK_MODEL_PROVIDER, key)).rows;
      if (!stored) return null;
      requireKeyForNewDestination(key[1], { kind: stored.kind, baseUrl: stored.base_url ?? undefined, hasApiKey: stored.has_api_key }, update);
      const [row] = (
        await client.query<ModelProviderRow>(UPDATE_MODEL_PROVIDER, [
          ...key,
          update.kind ?? null,
          update.baseUrl !== undefined,
          update.baseUrl ?? null,
          update.apiKey !== undefined,
          typeof update.apiKey === "string" ? this.keyring.seal(update.apiKey) : null,
          update.models ?? null,
          update.enabled ?? null,
        ])
      ).rows;
      return row ? this.view(row) : null;
    });
  }

  async deleteProvider(tenantId: string, providerId: string): Promise<boolean> {
    const params = [requireTenantId(tenantId), requireModelProviderId(providerId)];
    await this.initialize();
    return (await this.pool.query(DELETE_MODEL_PROVIDER, params)).rowCount === 1;
  }

  async getProviderCredentials(tenantId: string, providerId: string): Promise<ModelProviderCredentials | null> {
    const [row] = await this.rows(GET_MODEL_PROVIDER, [requireTenantId(tenantId), requireModelProviderId(providerId)]);
    if (!row) return null;
    return { ...this.withoutKey(row), ...(row.api_key_sealed === null ? {} : { apiKey: this.keyring.open(row.api_key_sealed) }) };
  }

  async recordDiscovery(tenantId: string, providerId: string, models: readonly string[]): Promise<DiscoveryRecord | null> {
    const key = [requireTenantId(tenantId), requireModelProviderId(providerId)];
    const listed = validateDiscoveredModels(models);
    await this.initialize();
    // One transaction: a reader sees the list before or after, never half of it.
    return inTransaction(this.pool, async (client) => {
      if ((await client.query(LOCK_PROVIDER_FOR_DISCOVERY, key)).rowCount !== 1) return null;
      const upserted = (await client.query<{ added: boolean }>(UPSERT_DISCOVERED_MODELS, [...key, listed])).rows;
      const vanished = (await client.query(MARK_VANISHED_MODELS, [...key, listed])).rowCount ?? 0;
      return { models: listed.length, added: upserted.filter((row) => row.added).length, vanished };
    });
  }

  async listModels(tenantId: string, providerId: string, page: PageRequest): Promise<Page<ProviderModel>> {
    const key = [requireTenantId(tenantId), requireModelProviderId(providerId)];
    const read = async (after: PageKey | null, fetch: number) => {
      await this.initialize();
      return (await this.pool.query<ProviderModelRow>(LIST_PROVIDER_MODELS, [...key, after?.[0] ?? null, fetch])).rows;
    };
    return readPage(page, ["string"], read, (row) => [row.model], toProviderModel);
  }

  async getModel(tenantId: string, providerId: string, model: string): Promise<ProviderModel | null> {
    const params = [requireTenantId(tenantId), requireModelProviderId(providerId), requireModelName(model)];
    await this.initialize();
    const [row] = (await this.pool.query<ProviderModelRow>(GET_PROVIDER_MODEL, params)).rows;
    return row ? toProviderModel(row) : null;
  }

  async setModelEnabled(tenantId: string, providerId: string, model: string, enabled: boolean): Promise<ProviderModel | null> {
    const params = [requireTenantId(tenantId), requireModelProviderId(providerId), requireModelName(model), requireEnabledFlag(enabled)];
    await this.initialize();
    const [row] = (await this.pool.query<ProviderModelRow>(SET_MODEL_ENABLED, params)).rows;
    return row ? toProviderModel(row) : null;
  }

  private view(row: ModelProviderRow): ModelProvider {
    return { ...this.withoutKey(row), hasApiKey: row.api_key_sealed !== null };
  }

  private withoutKey(row: ModelProviderRow): Omit<ModelProviderCredentials, "apiKey"> {
    return {
      id: row.id,
      tenantId: row.tenant_id,
      kind: row.kind,
      ...(row.base_url === null ? {} : { baseUrl: row.base_url }),
      models: row.models,
      enabled: row.enabled,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }

  private async rows(sql: string, params: unknown[]): Promise<ModelProviderRow[]> {
    await this.initialize();
    return (await this.pool.query<ModelProviderRow>(sql, params)).rows;
  }
}
