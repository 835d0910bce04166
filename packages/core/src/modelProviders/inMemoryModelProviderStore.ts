import type {
  CreateModelProviderRequest,
  DiscoveryRecord,
  ModelProvider,
  ModelProviderCredentials,
  ModelProviderStore,
  Page,
  PageRequest,
  ProviderModel,
  UpdateModelProviderRequest,
} from "@axiom-lattice/protocols";
import { CreationClock, pageByCreation } from "../stores/creationOrder";
import { comparePageKeys, pageOfSorted } from "../stores/keysetPages";
import { RecordExistsError } from "../stores/recordExistsError";
import { requireTenantId } from "../stores/storeArguments";
import {
  requireEnabledFlag,
  requireKeyForNewDestination,
  requireModelName,
  requireModelProviderId,
  validateCreateModelProvider,
  validateDiscoveredModels,
  validateUpdateModelProvider,
} from "./modelProviderArguments";

/** The answer's view of stored credentials: the key reduced to whether one is set. */
export function withoutApiKey({ apiKey, ...provider }: ModelProviderCredentials): ModelProvider {
  return { ...provider, hasApiKey: apiKey !== undefined };
}

/**
 * {@link ModelProviderStore} within one process: the same contract as the PostgreSQL store. Keys stay
 * in process memory, never at rest, so nothing is sealed here.
 */
export class InMemoryModelProviderStore implements ModelProviderStore {
  /** Per tenant, providers in creation order. */
  private readonly tenants = new Map<string, Map<string, ModelProviderCredentials>>();
  /** Per tenant and provider, its discovered models by name. */
  private readonly models = new Map<string, Map<string, Map<string, ProviderModel>>>();
  private readonly clock = new CreationClock();

  async createProvider(tenantId: string, request: CreateModelProviderRequest): Promise<ModelProvider> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateModelProvider(request);
    const providers = this.tenants.get(tenant) ?? new Map<string, ModelProviderCredentials>();
    if (providers.has(valid.id)) throw new RecordExistsError("model provider", tenant, valid.id);
    const now = this.clock.now();
    const provider: ModelProviderCredentials = { ...valid, tenantId: tenant, createdAt: now, updatedAt: now };
    providers.set(valid.id, provider);
    this.tenants.set(tenant, providers);
    return withoutApiKey(structuredClone(provider));
  }

  async getProvider(tenantId: string, providerId: string): Promise<ModelProvider | null> {
    const provider = await this.getProviderCredentials(tenantId, providerId);
    return provider ? withoutApiKey(provider) : null;
  }

  async listProviders(tenantId: string, page: PageRequest): Promise<Page<ModelProvider>> {
    const listed = pageByCreation([...(this.tenants.get(requireTenantId(tenantId))?.values() ?? [])], page, (provider) => provider.id);
    return { ...listed, items: listed.items.map(withoutApiKey) };
  }

  async updateProvider(tenantId: string, providerId: string, request: UpdateModelProviderRequest): Promise<ModelProvider | null> {
    const provider = this.find(tenantId, providerId);
    const update = validateUpdateModelProvider(request);
    if (!provider) return null;
    requireKeyForNewDestination(provider.id, { kind: provider.kind, baseUrl: provider.baseUrl, hasApiKey: provider.apiKey !== undefined }, update);
    for (const [field, value] of Object.entries(update)) {
      if (value === null) delete provider[field as "baseUrl" | "apiKey"];
      else Object.assign(provider, { [field]: value });
    }
    provider.updatedAt = this.clock.now();
    return withoutApiKey(structuredClone(provider));
  }

  async deleteProvider(tenantId: string, providerId: string): Promise<boolean> {
    const tenant = requireTenantId(tenantId);
    const id = requireModelProviderId(providerId);
    this.models.get(tenant)?.delete(id);
    return this.tenants.get(tenant)?.delete(id) ?? false;
  }

  async getProviderCredentials(tenantId: string, providerId: string): Promise<ModelProviderCredentials | null> {
    const provider = this.find(tenantId, providerId);
    return provider ? structuredClone(provider) : null;
  }

  async recordDiscovery(tenantId: string, providerId: string, models: readonly string[]): Promise<DiscoveryRecord | null> {
    const listed = validateDiscoveredModels(models);
    const provider = this.find(tenantId, providerId);
    if (!provider) return null;
    const tenantModels = this.models.get(provider.tenantId) ?? new Map<string, Map<string, ProviderModel>>();
    const known = tenantModels.get(provider.id) ?? new Map<string, ProviderModel>();
    const now = new Date();
    let added = 0;
    for (const model of listed) {
      const record = known.get(model);
      if (record) Object.assign(record, { available: true, lastSeenAt: now });
      else {
        known.set(model, { providerId: provider.id, model, enabled: true, available: true, discoveredAt: now, lastSeenAt: now });
        added += 1;
      }
    }
    const found = new Set(listed);
    let vanished = 0;
    for (const record of known.values()) {
      if (record.available && !found.has(record.model)) {
        record.available = false;
        vanished += 1;
      }
    }
    tenantModels.set(provider.id, known);
    this.models.set(provider.tenantId, tenantModels);
    return { models: listed.length, added, vanished };
  }

  async listModels(tenantId: string, providerId: string, page: PageRequest): Promise<Page<ProviderModel>> {
    const keyOf = (record: ProviderModel) => [record.model];
    const sorted = [...this.modelsOf(tenantId, providerId).values()].sort((a, b) => comparePageKeys(keyOf(a), keyOf(b)));
    return pageOfSorted(structuredClone(sorted), page, ["string"], keyOf);
  }

  async getModel(tenantId: string, providerId: string, model: string): Promise<ProviderModel | null> {
    const record = this.modelsOf(tenantId, providerId).get(requireModelName(model));
    return record ? structuredClone(record) : null;
  }

  async setModelEnabled(tenantId: string, providerId: string, model: string, enabled: boolean): Promise<ProviderModel | null> {
    const flag = requireEnabledFlag(enabled);
    const record = this.modelsOf(tenantId, providerId).get(requireModelName(model));
    if (!record) return null;
    record.enabled = flag;
    return structuredClone(record);
  }

  private modelsOf(tenantId: string, providerId: string): Map<string, ProviderModel> {
    return this.models.get(requireTenantId(tenantId))?.get(requireModelProviderId(providerId)) ?? new Map();
  }

  private find(tenantId: string, providerId: string): ModelProviderCredentials | undefined {
    return this.tenants.get(requireTenantId(tenantId))?.get(requireModelProviderId(providerId));
  }
}
