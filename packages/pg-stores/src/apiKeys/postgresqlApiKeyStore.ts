import { RecordExistsError, requireApiKeyId, requireSecretHash, requireTenantId, requireTime, validateCreateApiKey } from "@axiom-lattice/core";
import type { ApiKey, ApiKeyScope, ApiKeyStore, CreateApiKeyRequest, Page, PageRequest } from "@axiom-lattice/protocols";
import { readCreationPage } from "../db/pageKeys";
import { PgStore } from "../db/pgStore";
import { FIND_API_KEY_BY_SECRET_HASH, GET_API_KEY, INSERT_API_KEY, LIST_API_KEYS, RECORD_API_KEY_USE, REVOKE_API_KEY } from "./apiKeySql";

interface ApiKeyRow {
  id: string;
  tenant_id: string;
  name: string;
  scope: ApiKeyScope;
  assistant_ids: string[] | null;
  prefix: string;
  expires_at: Date | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

function toApiKey(row: ApiKeyRow): ApiKey {
  const key: ApiKey = { id: row.id, tenantId: row.tenant_id, name: row.name, scope: row.scope, prefix: row.prefix, createdAt: row.created_at };
  if (row.assistant_ids !== null) key.assistantIds = row.assistant_ids;
  if (row.expires_at !== null) key.expiresAt = row.expires_at;
  if (row.last_used_at !== null) key.lastUsedAt = row.last_used_at;
  if (row.revoked_at !== null) key.revokedAt = row.revoked_at;
  return key;
}

/** {@link ApiKeyStore} on `lattice_api_keys`: only each secret's hash is stored. */
export class PostgreSQLApiKeyStore extends PgStore implements ApiKeyStore {
  async createApiKey(tenantId: string, request: CreateApiKeyRequest): Promise<ApiKey> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateApiKey(request);
    const [row] = await this.rows(INSERT_API_KEY, [valid.id, tenant, valid.name, valid.scope, valid.assistantIds ?? null, valid.prefix, valid.secretHash, valid.expiresAt ?? null]);
    if (!row) throw new RecordExistsError("API key", tenant, valid.id);
    return toApiKey(row);
  }

  async getApiKey(tenantId: string, keyId: string): Promise<ApiKey | null> {
    const [row] = await this.rows(GET_API_KEY, [requireTenantId(tenantId), requireApiKeyId(keyId)]);
    return row ? toApiKey(row) : null;
  }

  async listApiKeys(tenantId: string, page: PageRequest): Promise<Page<ApiKey>> {
    const tenant = requireTenantId(tenantId);
    const read = (after: (string | null)[], fetch: number) => this.rows<ApiKeyRow & { created_us: string }>(LIST_API_KEYS, [tenant, ...after, fetch]);
    return readCreationPage(page, read, (row) => row.id, toApiKey);
  }

  async revokeApiKey(tenantId: string, keyId: string, at: Date): Promise<ApiKey | null> {
    const params = [requireTenantId(tenantId), requireApiKeyId(keyId), requireTime(at, "API key revocation time")];
    const [row] = await this.rows(REVOKE_API_KEY, params);
    return row ? toApiKey(row) : null;
  }

  async findApiKeyBySecretHash(secretHash: string): Promise<ApiKey | null> {
    const [row] = await this.rows(FIND_API_KEY_BY_SECRET_HASH, [requireSecretHash(secretHash)]);
    return row ? toApiKey(row) : null;
  }

  async recordApiKeyUse(keyId: string, at: Date): Promise<void> {
    await this.rows(RECORD_API_KEY_USE, [requireApiKeyId(keyId), requireTime(at, "API key use time")]);
  }

  private async rows<R extends object = ApiKeyRow>(sql: string, params: unknown[]): Promise<R[]> {
    await this.initialize();
    return (await this.pool.query<R>(sql, params)).rows;
  }
}
