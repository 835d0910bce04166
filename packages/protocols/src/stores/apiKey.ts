import type { Page, PageRequest } from "../page";

/**
 * What a key may do, as a JWT's scope: `read` ⊂ `write` ⊂ `admin`. Since each includes the ones before
 * it, a key holds one, its widest: a list of them would say nothing more.
 */
export type ApiKeyScope = "read" | "write" | "admin";

export const API_KEY_SCOPES: readonly ApiKeyScope[] = ["read", "write", "admin"];

/** The most assistants one key may be restricted to. */
export const MAX_API_KEY_ASSISTANTS = 100;

/** A tenant's long-lived credential for programs, as stores answer it: the secret itself is never stored. */
export interface ApiKey {
  id: string;
  tenantId: string;
  name: string;
  scope: ApiKeyScope;
  /** The only assistants the key may see and run; absent: every assistant of its tenant. */
  assistantIds?: string[];
  /** The secret's first characters, to recognise a key by (never enough to use it). */
  prefix: string;
  /** Absent: the key never expires. */
  expiresAt?: Date;
  createdAt: Date;
  /** When the key last authenticated a request (recorded at most about once a minute). */
  lastUsedAt?: Date;
  /** When it was revoked: it authenticates nothing after. */
  revokedAt?: Date;
}

export interface CreateApiKeyRequest {
  /** Chosen by the caller (the gateway generates it). */
  id: string;
  name: string;
  scope: ApiKeyScope;
  assistantIds?: string[];
  expiresAt?: Date;
  /** The secret's SHA-256, 64 lowercase hex digits: what a presented key is looked up by. */
  secretHash: string;
  prefix: string;
}

/** The tenants' API keys, by id within a tenant and by their secret's hash across tenants. */
export interface ApiKeyStore {
  /** Throws `ALREADY_EXISTS` when the id, or the secret's hash, is taken already. */
  createApiKey(tenantId: string, request: CreateApiKeyRequest): Promise<ApiKey>;
  getApiKey(tenantId: string, keyId: string): Promise<ApiKey | null>;
  /** The tenant's keys, revoked ones too, oldest first (ties: by id). */
  listApiKeys(tenantId: string, page: PageRequest): Promise<Page<ApiKey>>;
  /**
   * Marks the key revoked at `at`; a key revoked already keeps its first revocation time. Null when
   * the tenant has no such key.
   */
  revokeApiKey(tenantId: string, keyId: string, at: Date): Promise<ApiKey | null>;
  /**
   * The key whose secret hashes to `secretHash`, of any tenant, revoked and expired ones too (the
   * caller judges them): what a presented key is authenticated by.
   */
  findApiKeyBySecretHash(secretHash: string): Promise<ApiKey | null>;
  /** Records a use at `at`; an earlier time never replaces a later one. */
  recordApiKeyUse(keyId: string, at: Date): Promise<void>;
}
