import type {
  CreateModelProviderRequest,
  ModelProvider,
  ModelProviderCredentials,
  ModelProviderStore,
  Page,
  PageRequest,
  UpdateModelProviderRequest,
} from "@axiom-lattice/protocols";
import { CreationClock, pageByCreation } from "../stores/creationOrder";
import { RecordExistsError } from "../stores/recordExistsError";
import { requireTenantId } from "../stores/storeArguments";
import { requireKeyForNewDestination, requireModelProviderId, validateCreateModelProvider, validateUpdateModelProvider } from "./modelProviderArguments";

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
    return this.tenants.get(requireTenantId(tenantId))?.delete(requireModelProviderId(providerId)) ?? false;
  }

  async getProviderCredentials(tenantId: string, providerId: string): Promise<ModelProviderCredentials | null> {
    const provider = this.find(tenantId, providerId);
    return provider ? structuredClone(provider) : null;
  }

  private find(tenantId: string, providerId: string): ModelProviderCredentials | undefined {
    return this.tenants.get(requireTenantId(tenantId))?.get(requireModelProviderId(providerId));
  }
}
