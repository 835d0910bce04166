import type {
  CreateWebAppRequest,
  Page,
  PageRequest,
  UpdateWebAppRequest,
  WebApp,
  WebAppKeys,
  WebAppStore,
  WebAppThread,
  WebAppWithKeys,
} from "@axiom-lattice/protocols";
import { CreationClock, pageByCreation } from "../stores/creationOrder";
import { RecordExistsError } from "../stores/recordExistsError";
import { requireTenantId, requireText } from "../stores/storeArguments";
import { requireSecretGrace, requireWebAppId, requireWebAppUserId, updatedAppearance, validateCreateWebApp, validateUpdateWebApp } from "./webAppArguments";

interface StoredWebApp {
  webApp: Omit<WebApp, "hasSecret">;
  keys: WebAppKeys;
}

const view = ({ webApp, keys }: StoredWebApp): WebApp => structuredClone({ ...webApp, hasSecret: keys.secret !== undefined });

/**
 * {@link WebAppStore} within one process: the same contract as the PostgreSQL store. Secrets stay in
 * process memory, never at rest, so nothing is sealed here.
 */
export class InMemoryWebAppStore implements WebAppStore {
  /** By id: ids are unique across tenants. */
  private readonly webApps = new Map<string, StoredWebApp>();
  /** Per web app, its owned threads by thread id. */
  private readonly threads = new Map<string, Map<string, WebAppThread>>();
  private readonly clock = new CreationClock();

  async createWebApp(tenantId: string, request: CreateWebAppRequest): Promise<WebApp> {
    const tenant = requireTenantId(tenantId);
    const { previewSecret, ...valid } = validateCreateWebApp(request);
    if (this.webApps.has(valid.id)) throw new RecordExistsError("web app", tenant, valid.id);
    const now = this.clock.now();
    const stored: StoredWebApp = { webApp: { ...valid, tenantId: tenant, createdAt: now, updatedAt: now }, keys: { previewSecret } };
    this.webApps.set(valid.id, stored);
    return view(stored);
  }

  async getWebApp(tenantId: string, webAppId: string): Promise<WebApp | null> {
    const stored = this.find(tenantId, webAppId);
    return stored ? view(stored) : null;
  }

  async listWebApps(tenantId: string, page: PageRequest): Promise<Page<WebApp>> {
    const tenant = requireTenantId(tenantId);
    const owned = [...this.webApps.values()].filter((stored) => stored.webApp.tenantId === tenant).map(view);
    return pageByCreation(owned, page, (webApp) => webApp.id);
  }

  async updateWebApp(tenantId: string, webAppId: string, request: UpdateWebAppRequest): Promise<WebApp | null> {
    const stored = this.find(tenantId, webAppId);
    const { appearance, ...update } = validateUpdateWebApp(request);
    if (!stored) return null;
    Object.assign(stored.webApp, update, { appearance: updatedAppearance(stored.webApp.appearance, appearance), updatedAt: this.clock.now() });
    return view(stored);
  }

  async deleteWebApp(tenantId: string, webAppId: string): Promise<boolean> {
    const stored = this.find(tenantId, webAppId);
    if (!stored) return false;
    this.webApps.delete(stored.webApp.id);
    this.threads.delete(stored.webApp.id);
    return true;
  }

  async rotateSecret(tenantId: string, webAppId: string, secret: string, previousValidUntil: Date): Promise<WebApp | null> {
    const stored = this.find(tenantId, webAppId);
    const valid = requireSecretGrace(secret, previousValidUntil);
    if (!stored) return null;
    const { previewSecret, secret: replaced } = stored.keys;
    stored.keys = { previewSecret, secret: valid.secret, ...(replaced === undefined ? {} : { previous: replaced, previousValidUntil: new Date(valid.previousValidUntil) }) };
    stored.webApp.updatedAt = this.clock.now();
    return view(stored);
  }

  async getWebAppWithKeys(webAppId: string): Promise<WebAppWithKeys | null> {
    const stored = this.webApps.get(requireWebAppId(webAppId));
    return stored ? { webApp: view(stored), keys: structuredClone(stored.keys) } : null;
  }

  async addThread(tenantId: string, webAppId: string, threadId: string, userId: string): Promise<WebAppThread | null> {
    const tenant = requireTenantId(tenantId);
    const owner = requireWebAppUserId(userId);
    const thread = requireText(threadId, "Web app thread id");
    const stored = this.find(tenant, webAppId);
    if (!stored) return null;
    const threads = this.threads.get(stored.webApp.id) ?? new Map<string, WebAppThread>();
    if (threads.has(thread)) throw new RecordExistsError("web app thread", tenant, thread);
    const owned: WebAppThread = { webAppId: stored.webApp.id, threadId: thread, userId: owner, createdAt: this.clock.now() };
    threads.set(thread, owned);
    this.threads.set(stored.webApp.id, threads);
    return structuredClone(owned);
  }

  async getThread(tenantId: string, webAppId: string, threadId: string): Promise<WebAppThread | null> {
    const stored = this.find(tenantId, webAppId);
    const owned = stored && this.threads.get(stored.webApp.id)?.get(threadId);
    return owned ? structuredClone(owned) : null;
  }

  async listUserThreads(tenantId: string, webAppId: string, userId: string, page: PageRequest): Promise<Page<WebAppThread>> {
    const owner = requireWebAppUserId(userId);
    const stored = this.find(tenantId, webAppId);
    const owned = [...((stored && this.threads.get(stored.webApp.id)?.values()) ?? [])].filter((thread) => thread.userId === owner);
    return pageByCreation(owned, page, (thread) => thread.threadId);
  }

  /** The tenant's web app; another tenant's is as missing. */
  private find(tenantId: string, webAppId: string): StoredWebApp | undefined {
    const tenant = requireTenantId(tenantId);
    const stored = this.webApps.get(requireWebAppId(webAppId));
    return stored?.webApp.tenantId === tenant ? stored : undefined;
  }
}
