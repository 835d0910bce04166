import {
  RecordExistsError,
  type SecretKeyring,
  requireSecretGrace,
  requireTenantId,
  requireText,
  requireWebAppId,
  requireWebAppUserId,
  updatedAppearance,
  validateCreateWebApp,
  validateUpdateWebApp,
} from "@axiom-lattice/core";
import type {
  CreateWebAppRequest,
  Page,
  PageRequest,
  UpdateWebAppRequest,
  WebApp,
  WebAppAppearance,
  WebAppIdentityMode,
  WebAppStatus,
  WebAppStore,
  WebAppThread,
  WebAppWithKeys,
} from "@axiom-lattice/protocols";
import { readCreationPage } from "../db/pageKeys";
import { PgStore } from "../db/pgStore";
import type { PgStoreOptions } from "../db/pool";
import { inTransaction } from "../db/transaction";
import {
  DELETE_WEB_APP,
  GET_WEB_APP,
  GET_WEB_APP_THREAD,
  GET_WEB_APP_WITH_KEYS,
  INSERT_WEB_APP,
  INSERT_WEB_APP_THREAD,
  LIST_USER_THREADS,
  LIST_WEB_APPS,
  LOCK_WEB_APP_APPEARANCE,
  ROTATE_WEB_APP_SECRET,
  UPDATE_WEB_APP,
} from "./webAppSql";

interface WebAppRow {
  id: string;
  tenant_id: string;
  assistant_id: string;
  name: string;
  status: WebAppStatus;
  appearance: WebAppAppearance;
  allowed_origins: string[];
  identity_mode: WebAppIdentityMode;
  has_secret: boolean;
  created_at: Date;
  updated_at: Date;
}

interface KeyRow extends WebAppRow {
  secret_sealed: string | null;
  previous_secret_sealed: string | null;
  previous_valid_until: Date | null;
  preview_secret_sealed: string;
}

interface ThreadRow {
  web_app_id: string;
  thread_id: string;
  user_id: string;
  created_at: Date;
}

export interface PostgreSQLWebAppStoreOptions extends PgStoreOptions {
  /** Seals the web apps' secrets before they are written, and opens them for a runtime request. */
  keyring: SecretKeyring;
}

const toWebApp = (row: WebAppRow): WebApp => ({
  id: row.id,
  tenantId: row.tenant_id,
  assistantId: row.assistant_id,
  name: row.name,
  status: row.status,
  appearance: row.appearance,
  allowedOrigins: row.allowed_origins,
  identityMode: row.identity_mode,
  hasSecret: row.has_secret,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toThread = (row: ThreadRow): WebAppThread => ({ webAppId: row.web_app_id, threadId: row.thread_id, userId: row.user_id, createdAt: row.created_at });

/** {@link WebAppStore} on `lattice_web_apps` and `lattice_web_app_threads`; secrets are stored sealed only. */
export class PostgreSQLWebAppStore extends PgStore implements WebAppStore {
  private readonly keyring: SecretKeyring;

  constructor(options: PostgreSQLWebAppStoreOptions) {
    super(options);
    this.keyring = options.keyring;
  }

  async createWebApp(tenantId: string, request: CreateWebAppRequest): Promise<WebApp> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateWebApp(request);
    const [row] = await this.rows<WebAppRow>(INSERT_WEB_APP, [
      valid.id,
      tenant,
      valid.assistantId,
      valid.name,
      valid.status,
      JSON.stringify(valid.appearance),
      valid.allowedOrigins,
      valid.identityMode,
      this.keyring.seal(valid.previewSecret),
    ]);
    if (!row) throw new RecordExistsError("web app", tenant, valid.id);
    return toWebApp(row);
  }

  async getWebApp(tenantId: string, webAppId: string): Promise<WebApp | null> {
    const [row] = await this.rows<WebAppRow>(GET_WEB_APP, [requireTenantId(tenantId), requireWebAppId(webAppId)]);
    return row ? toWebApp(row) : null;
  }

  async listWebApps(tenantId: string, page: PageRequest): Promise<Page<WebApp>> {
    const tenant = requireTenantId(tenantId);
    const read = (after: (string | null)[], fetch: number) => this.rows<WebAppRow & { created_us: string }>(LIST_WEB_APPS, [tenant, ...after, fetch]);
    return readCreationPage(page, read, (row) => row.id, toWebApp);
  }

  async updateWebApp(tenantId: string, webAppId: string, request: UpdateWebAppRequest): Promise<WebApp | null> {
    const key = [requireTenantId(tenantId), requireWebAppId(webAppId)];
    const { appearance, ...update } = validateUpdateWebApp(request);
    await this.initialize();
    // The appearance is merged against the locked row: concurrent updates of its fields both count.
    return inTransaction(this.pool, async (client) => {
      const [stored] = (await client.query<{ appearance: WebAppAppearance }>(LOCK_WEB_APP_APPEARANCE, key)).rows;
      if (!stored) return null;
      const [row] = (
        await client.query<WebAppRow>(UPDATE_WEB_APP, [
          ...key,
          update.assistantId ?? null,
          update.name ?? null,
          update.status ?? null,
          appearance === undefined ? null : JSON.stringify(updatedAppearance(stored.appearance, appearance)),
          update.allowedOrigins ?? null,
          update.identityMode ?? null,
        ])
      ).rows;
      return row ? toWebApp(row) : null;
    });
  }

  async deleteWebApp(tenantId: string, webAppId: string): Promise<boolean> {
    const params = [requireTenantId(tenantId), requireWebAppId(webAppId)];
    await this.initialize();
    return (await this.pool.query(DELETE_WEB_APP, params)).rowCount === 1;
  }

  async rotateSecret(tenantId: string, webAppId: string, secret: string, previousValidUntil: Date): Promise<WebApp | null> {
    const key = [requireTenantId(tenantId), requireWebAppId(webAppId)];
    const valid = requireSecretGrace(secret, previousValidUntil);
    const [row] = await this.rows<WebAppRow>(ROTATE_WEB_APP_SECRET, [...key, this.keyring.seal(valid.secret), valid.previousValidUntil]);
    return row ? toWebApp(row) : null;
  }

  async getWebAppWithKeys(webAppId: string): Promise<WebAppWithKeys | null> {
    const [row] = await this.rows<KeyRow>(GET_WEB_APP_WITH_KEYS, [requireWebAppId(webAppId)]);
    if (!row) return null;
    const keys: WebAppWithKeys["keys"] = { previewSecret: this.keyring.open(row.preview_secret_sealed) };
    if (row.secret_sealed !== null) keys.secret = this.keyring.open(row.secret_sealed);
    if (row.previous_secret_sealed !== null && row.previous_valid_until !== null) {
      keys.previous = this.keyring.open(row.previous_secret_sealed);
      keys.previousValidUntil = row.previous_valid_until;
    }
    return { webApp: toWebApp(row), keys };
  }

  async addThread(tenantId: string, webAppId: string, threadId: string, userId: string): Promise<WebAppThread | null> {
    const key = [requireTenantId(tenantId), requireWebAppId(webAppId)];
    const thread = requireText(threadId, "Web app thread id");
    const [row] = await this.rows<ThreadRow>(INSERT_WEB_APP_THREAD, [...key, thread, requireWebAppUserId(userId)]);
    if (row) return toThread(row);
    if (!(await this.getWebApp(key[0], key[1]))) return null;
    throw new RecordExistsError("web app thread", key[0], thread);
  }

  async getThread(tenantId: string, webAppId: string, threadId: string): Promise<WebAppThread | null> {
    const [row] = await this.rows<ThreadRow>(GET_WEB_APP_THREAD, [requireTenantId(tenantId), requireWebAppId(webAppId), requireText(threadId, "Web app thread id")]);
    return row ? toThread(row) : null;
  }

  async listUserThreads(tenantId: string, webAppId: string, userId: string, page: PageRequest): Promise<Page<WebAppThread>> {
    const scope = [requireTenantId(tenantId), requireWebAppId(webAppId), requireWebAppUserId(userId)];
    const read = (after: (string | null)[], fetch: number) => this.rows<ThreadRow & { created_us: string }>(LIST_USER_THREADS, [...scope, ...after, fetch]);
    return readCreationPage(page, read, (row) => row.thread_id, toThread);
  }

  private async rows<R extends object>(sql: string, params: unknown[]): Promise<R[]> {
    await this.initialize();
    return (await this.pool.query<R>(sql, params)).rows;
  }
}
