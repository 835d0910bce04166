import type { ApiKey, ApiKeyStore, CreateApiKeyRequest, Page, PageRequest } from "@axiom-lattice/protocols";
import { CreationClock, pageByCreation } from "../stores/creationOrder";
import { RecordExistsError } from "../stores/recordExistsError";
import { requireTenantId } from "../stores/storeArguments";
import { requireApiKeyId, requireSecretHash, requireTime, validateCreateApiKey } from "./apiKeyArguments";

interface StoredApiKey {
  key: ApiKey;
  secretHash: string;
}

/** {@link ApiKeyStore} within one process: the same contract as the PostgreSQL store. */
export class InMemoryApiKeyStore implements ApiKeyStore {
  /** By id: ids are unique across tenants, as a use is recorded by id alone. */
  private readonly keys = new Map<string, StoredApiKey>();
  /** Key ids by their secret's hash. */
  private readonly byHash = new Map<string, string>();
  private readonly clock = new CreationClock();

  async createApiKey(tenantId: string, request: CreateApiKeyRequest): Promise<ApiKey> {
    const tenant = requireTenantId(tenantId);
    const { secretHash, ...valid } = validateCreateApiKey(request);
    if (this.keys.has(valid.id) || this.byHash.has(secretHash)) throw new RecordExistsError("API key", tenant, valid.id);
    const key: ApiKey = { ...valid, tenantId: tenant, createdAt: this.clock.now() };
    this.keys.set(key.id, { key, secretHash });
    this.byHash.set(secretHash, key.id);
    return structuredClone(key);
  }

  async getApiKey(tenantId: string, keyId: string): Promise<ApiKey | null> {
    const stored = this.find(tenantId, keyId);
    return stored ? structuredClone(stored.key) : null;
  }

  async listApiKeys(tenantId: string, page: PageRequest): Promise<Page<ApiKey>> {
    const tenant = requireTenantId(tenantId);
    const owned = [...this.keys.values()].filter((stored) => stored.key.tenantId === tenant).map((stored) => stored.key);
    return pageByCreation(owned, page, (key) => key.id);
  }

  async revokeApiKey(tenantId: string, keyId: string, at: Date): Promise<ApiKey | null> {
    const stored = this.find(tenantId, keyId);
    const revokedAt = requireTime(at, "API key revocation time");
    if (!stored) return null;
    stored.key.revokedAt ??= new Date(revokedAt);
    return structuredClone(stored.key);
  }

  async findApiKeyBySecretHash(secretHash: string): Promise<ApiKey | null> {
    const id = this.byHash.get(requireSecretHash(secretHash));
    const stored = id === undefined ? undefined : this.keys.get(id);
    return stored ? structuredClone(stored.key) : null;
  }

  async recordApiKeyUse(keyId: string, at: Date): Promise<void> {
    const stored = this.keys.get(requireApiKeyId(keyId));
    const usedAt = requireTime(at, "API key use time");
    if (stored && (stored.key.lastUsedAt === undefined || stored.key.lastUsedAt < usedAt)) stored.key.lastUsedAt = new Date(usedAt);
  }

  /** The tenant's key; another tenant's is as missing. */
  private find(tenantId: string, keyId: string): StoredApiKey | undefined {
    const tenant = requireTenantId(tenantId);
    const stored = this.keys.get(requireApiKeyId(keyId));
    return stored?.key.tenantId === tenant ? stored : undefined;
  }
}
