import type { AgentInstanceManager, GraphRunOptions } from "@axiom-lattice/agent";
import type { ThreadRunScope } from "@axiom-lattice/core";
import type { Page, PageRequest, WebApp, WebAppThread } from "@axiom-lattice/protocols";
import { BEARER, MAX_AUTHORIZATION_LENGTH } from "../auth/authentication";
import { type WebAppUser, issueVisitorToken, newVisitorId, verifyWebAppToken } from "../auth/webAppTokens";
import { WEB_APP_VISITOR_TOKEN_TTL_S } from "../defaults";
import { HttpError } from "../http/errors";
import { threadScope } from "../shared/lookups";
import type { GatewayStores } from "../stores/gatewayStores";

/** Who a runtime request acts for, and in which web app (whose tenant every query is confined to). */
export interface WebAppCaller {
  webApp: WebApp;
  user: WebAppUser;
}

export interface WebAppRuntimeOptions {
  stores: Pick<GatewayStores, "webApps" | "threads" | "assistants" | "modelProviders">;
  agents: Pick<AgentInstanceManager, "getAgent">;
  /** Tells the peers a web app changed, so that they end the streams it no longer serves. */
  announceChange(tenantId: string, webAppId: string): Promise<void>;
}

/** A web app an end user may not use: missing, disabled, or a draft without a preview token. */
const notFound = (webAppId: string) => new HttpError("NOT_FOUND", `Web app ${webAppId} not found`);

const draftClosed = (webAppId: string) => new HttpError("FORBIDDEN", `Web app ${webAppId} is a draft: only an operator's preview token opens it`);

/** The token of an `Authorization: Bearer` header, or a `401`. */
function bearerToken(authorization: string | undefined): string {
  const match = authorization !== undefined && authorization.length <= MAX_AUTHORIZATION_LENGTH ? BEARER.exec(authorization) : null;
  if (!match) throw new HttpError("UNAUTHENTICATED", "An Authorization: Bearer <web-app token> header is required");
  return match[1];
}

/**
 * The web-app runtime's rules, for its routes: who a request acts for (its web-app token against the
 * web app's keys, its status), and which threads are theirs. Another user's thread is as missing.
 */
export class WebAppRuntime {
  /** This replica's open streams, by web app: each ends when its web app stops serving. */
  private readonly streams = new Map<string, Set<AbortController>>();

  constructor(private readonly options: WebAppRuntimeOptions) {}

  /** A signal that aborts when the web app stops serving (disabled or removed); `release` once the stream ended. */
  watch(webAppId: string): { signal: AbortSignal; release(): void } {
    const controller = new AbortController();
    const open = this.streams.get(webAppId) ?? new Set<AbortController>();
    open.add(controller);
    this.streams.set(webAppId, open);
    return {
      signal: controller.signal,
      release: () => {
        open.delete(controller);
        if (open.size === 0 && this.streams.get(webAppId) === open) this.streams.delete(webAppId);
      },
    };
  }

  /** An operator changed or removed the web app: this replica's streams end if it stopped serving, the peers' too. */
  async changed(tenantId: string, webAppId: string): Promise<void> {
    await this.refresh(webAppId);
    await this.options.announceChange(tenantId, webAppId);
  }

  /** Reads the web app again; ends this replica's streams of it when it is disabled or gone. */
  async refresh(webAppId: string): Promise<void> {
    if (!this.streams.has(webAppId)) return;
    const found = await this.options.stores.webApps.getWebAppWithKeys(webAppId);
    if (found && found.webApp.status !== "disabled") return;
    for (const controller of this.streams.get(webAppId) ?? []) controller.abort();
  }

  /**
   * The caller of a runtime request: the web app must serve (`403` disabled; a draft only to a
   * preview token), the bearer token must verify for it (`401`).
   */
  async authorize(webAppId: string, authorization: string | undefined): Promise<WebAppCaller> {
    const found = await this.serving(webAppId);
    const user = await verifyWebAppToken(bearerToken(authorization), found);
    if (found.webApp.status === "draft" && user.kind !== "preview") throw draftClosed(webAppId);
    return { webApp: found.webApp, user };
  }

  /**
   * A visitor token of an `anonymous` web app: for a new visitor, or for the same visitor again when
   * their own token, still valid, comes with the request (so a visitor who returns keeps their
   * threads). Any other token is refused rather than ignored: a page that holds one is confused.
   */
  async admitVisitor(webAppId: string, authorization: string | undefined): Promise<{ userId: string; token: string; expiresAt: Date }> {
    const found = await this.serving(webAppId);
    if (found.webApp.identityMode !== "anonymous") {
      throw new HttpError("FORBIDDEN", `Web app ${webAppId} admits no visitors: its identity mode is signed, the host's backend signs each user's token`);
    }
    if (found.webApp.status === "draft") throw draftClosed(webAppId);
    let userId = newVisitorId();
    if (authorization !== undefined) {
      const user = await verifyWebAppToken(bearerToken(authorization), found);
      if (user.kind !== "visitor") throw new HttpError("UNAUTHENTICATED", "Only a visitor's own token renews it");
      userId = user.userId;
    }
    return { userId, ...(await issueVisitorToken(found, userId, WEB_APP_VISITOR_TOKEN_TTL_S)) };
  }

  /** The web app with its keys, unless it serves nobody (missing: `404`, disabled: `403`). */
  private async serving(webAppId: string) {
    const found = await this.options.stores.webApps.getWebAppWithKeys(webAppId);
    if (!found) throw notFound(webAppId);
    if (found.webApp.status === "disabled") throw new HttpError("FORBIDDEN", `Web app ${webAppId} is disabled`);
    return found;
  }

  /** A web app whose appearance the caller may read: a published one, anyone; a draft, a preview token. */
  async publicWebApp(webAppId: string, authorization: string | undefined): Promise<WebApp> {
    const found = await this.options.stores.webApps.getWebAppWithKeys(webAppId);
    if (found?.webApp.status === "published") return found.webApp;
    return (await this.authorize(webAppId, authorization)).webApp;
  }

  /** A new thread of the web app's assistant, owned by the caller. */
  async createThread({ webApp, user }: WebAppCaller): Promise<WebAppThread> {
    const { threads, webApps } = this.options.stores;
    const thread = await threads.createThread(webApp.tenantId, { assistantId: webApp.assistantId, metadata: { web_app_id: webApp.id, web_app_user_id: user.userId } });
    const owned = await webApps.addThread(webApp.tenantId, webApp.id, thread.id, user.userId);
    if (owned) return owned;
    // The web app was deleted meanwhile: the thread would belong to nobody.
    await threads.deleteThread(webApp.tenantId, thread.id);
    throw notFound(webApp.id);
  }

  listThreads({ webApp, user }: WebAppCaller, page: PageRequest): Promise<Page<WebAppThread>> {
    return this.options.stores.webApps.listUserThreads(webApp.tenantId, webApp.id, user.userId, page);
  }

  /** The run scope of a thread the caller owns; `404` for any other thread. */
  async ownedThread({ webApp, user }: WebAppCaller, threadId: string): Promise<ThreadRunScope> {
    const { threads, webApps } = this.options.stores;
    const owned = await webApps.getThread(webApp.tenantId, webApp.id, threadId);
    const thread = owned?.userId === user.userId ? await threads.getThread(webApp.tenantId, threadId) : null;
    if (!thread) throw new HttpError("NOT_FOUND", `Thread ${threadId} not found`);
    return threadScope(thread);
  }

  /**
   * The run's graph options for an end user's `model_key`: one of the models the thread's assistant's
   * catalog provider offers (or the assistant's own model). Anything else is refused: an end user
   * never picks what the operator did not offer. An assistant with a key of its own takes none, so
   * that no key is copied into the run.
   */
  async modelChoice(scope: ThreadRunScope, modelKey: string | undefined): Promise<GraphRunOptions | undefined> {
    if (modelKey === undefined) return undefined;
    const { assistants, modelProviders } = this.options.stores;
    const model = (await assistants.getAssistant(scope.tenantId, scope.assistantId))?.model ?? { provider: "scripted" };
    const offered = model.apiKey === undefined ? [...((await modelProviders.getProvider(scope.tenantId, model.provider))?.models ?? []), ...(model.model ? [model.model] : [])] : [];
    if (!offered.includes(modelKey)) {
      throw new HttpError("INVALID_REQUEST", `Invalid request body: model_key must be one of the models this web app offers (${offered.join(", ") || "none"})`);
    }
    return { settings: { model: { ...model, model: modelKey } } };
  }

  /** The agent handle of a thread the caller owns. */
  async agentOf(caller: WebAppCaller, threadId: string) {
    const scope = await this.ownedThread(caller, threadId);
    return { scope, agent: this.options.agents.getAgent(scope) };
  }
}
