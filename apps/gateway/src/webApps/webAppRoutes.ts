import type { AgentInput, RunAffinity, StreamChunk } from "@axiom-lattice/agent";
import { type ThreadRunScope, boundedJson, queueScopeOf } from "@axiom-lattice/core";
import { AFFINITY_ECHO_HEADER, type ErrorCode, MAX_EMBED_MESSAGE_CHARS, REPLICA_HEADER, WEB_APP_IDENTITY_MODES } from "@axiom-lattice/protocols";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { GatewayConfig } from "../config";
import { HttpError } from "../http/errors";
import { idSchema } from "../http/ids";
import { pageBody, pageQuery, pageView } from "../http/pageWire";
import type { StreamPlace, TenantStreams } from "../http/tenantStreams";
import type { TenantSubmissions } from "../http/tenantSubmissions";
import type { GatewayMetrics } from "../metrics/gatewayMetrics";
import { errorResponses } from "../openapi/errorResponses";
import { type ChunkProjection, runStreams } from "../shared/runStreams";
import { resumePoint } from "../shared/streamEventIds";
import type { GatewayStores } from "../stores/gatewayStores";
import { toPageChunk } from "./pageChunks";
import type { WebAppCaller, WebAppRuntime } from "./webAppRuntime";

export interface WebAppRoutesOptions {
  webApps: WebAppRuntime;
  stores: Pick<GatewayStores, "queue">;
  affinity: RunAffinity;
  streams: TenantStreams;
  /** Holds the tenant's run submissions under way, as on its other run routes. */
  submissions: TenantSubmissions;
  config: Pick<GatewayConfig, "tenantLimits" | "webAppRunRateLimitPerMinute" | "webAppVisitorRateLimitPerMinute" | "runRateLimitPerMinute" | "sseHeartbeatMs">;
  metrics: Pick<GatewayMetrics, "affinityMisses" | "sseSubscribers">;
}

const CALLER = "webAppCaller";

const appParams = z.object({ id: idSchema });
const threadParams = z.object({ id: idSchema, thread_id: idSchema });
const interruptParams = threadParams.extend({ interrupt_id: z.string().min(1).max(128) });

const messageSchema = z.string().min(1).max(MAX_EMBED_MESSAGE_CHARS).describe(`The user's text, at most ${MAX_EMBED_MESSAGE_CHARS} characters`);
const messageIdSchema = idSchema.optional().describe("Chosen by the page, unique within the web app's tenant; generated when absent");
const modelKeySchema = z.string().min(1).max(256).optional().describe("One of the models the assistant's provider offers (its catalog provider's `models`); absent: the assistant's");
const streamBody = z.strictObject({ message: messageSchema, model_key: modelKeySchema, message_id: messageIdSchema });
const enqueueBody = z.strictObject({ thread_id: idSchema.describe("One of the user's threads"), message: messageSchema, model_key: modelKeySchema, message_id: messageIdSchema });
const resumeStreamBody = z.strictObject({
  message_id: idSchema.optional().describe("The message to follow; may be left to a Last-Event-ID header"),
  after: z.number().int().min(-1).max(Number.MAX_SAFE_INTEGER).optional().describe("Replay the chunks after this index (default -1: all)"),
  view: z.enum(["page", "native"]).default("page").describe("page: the projected chunks of `/stream`; native: the raw chunks of `/stream/native`"),
});
const resumeStreamHeaders = z.looseObject({ "last-event-id": z.string().max(512).optional().describe("`<message_id>:<index>`, as the stream sent it: resume after it") });
const interruptBody = z.strictObject({ response: boundedJson(z.unknown()).describe("What the interrupted graph's `interrupt()` returns") });

const configView = z
  .object({
    id: z.string(),
    name: z.string(),
    title: z.string().optional(),
    welcome: z.string().optional(),
    quicks: z.array(z.object({ label: z.string(), text: z.string() })),
    accent_color: z.string().optional(),
    allowed_origins: z.array(z.string()).describe("Origins the page may be framed by and talk to"),
    identity: z.object({ mode: z.enum(WEB_APP_IDENTITY_MODES) }).describe("signed: the host gives each user's token (axiom:identity); anonymous: the page asks `visitors` for one"),
  })
  .meta({ id: "WebAppConfig" });
const ownedThreadView = z.object({ thread_id: z.string(), created_at: z.date() }).meta({ id: "WebAppThread" });
const threadMessagesView = z.object({
  thread_id: z.string(),
  messages: z.array(z.object({ id: z.string().optional(), role: z.enum(["user", "assistant"]), content: z.string() })),
  interrupts: z.array(z.object({ id: z.string().optional(), value: z.unknown() })).describe("What the thread waits on: answer one with its `resume`"),
});
const queuedView = z.object({ success: z.literal(true), message_id: z.string(), queued: z.literal(true) });
const visitorView = z
  .object({
    token: z.string().describe("The visitor's web-app token: the page keeps it and sends it as Authorization: Bearer"),
    user_id: z.string().describe("The visitor's id, `visitor:<uuid>`, chosen by the gateway"),
    expires_at: z.date().describe("Renew before: the same call with this token answers a new one for the same visitor"),
  })
  .meta({ id: "WebAppVisitor" });

const pageStream = z
  .string()
  .describe(
    "Server-sent events `id: <message_id>:<index>` / `data:` one of `{ type: \"text\", text, message_id }`, `{ type: \"tool\", phase: \"call\"|\"result\", name, call_id }` (tool activity: names only), " +
      "`{ type: \"interrupt\", interrupts: [{ id, value }] }`, `{ type: \"resumed\", replica }` (another replica took the run over), and last `{ type: \"done\", status }` or `{ type: \"error\", code, error }`",
  );
const nativeStream = z.string().describe("Server-sent events `id: <message_id>:<index>` / `data: {\"type\", \"data\"}`: the run's chunks as `POST /api/runs` streams them");
const sse = (schema: z.ZodType) => ({ description: "The run's events", content: { "text/event-stream": { schema } } });

/** Every runtime route may answer these: a token refused, a web app that does not serve, a fault. */
const RUNTIME_CODES: readonly ErrorCode[] = ["INVALID_REQUEST", "UNAUTHENTICATED", "TOKEN_EXPIRED", "FORBIDDEN", "NOT_FOUND", "INTERNAL_ERROR", "DATABASE_UNAVAILABLE", "NOT_READY"];
const BODY_CODES: readonly ErrorCode[] = ["INVALID_JSON", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];
const RUN_CODES: readonly ErrorCode[] = [...BODY_CODES, "RATE_LIMITED", "QUEUE_FULL", "DUPLICATE_MESSAGE", "TOO_MANY_STREAMS", "TOO_MANY_SUBMISSIONS", "INVALID_RUN_INPUT"];
const runtimeErrors = (...codes: readonly ErrorCode[]) => errorResponses([...RUNTIME_CODES, ...codes]);

/** What a run of the page is queued with: its message, or the answer to an interrupt. */
interface PageRun {
  input: AgentInput;
  command?: { resume: unknown };
  messageId?: string;
  modelKey?: string;
}

const tags = ["web-app runtime"];
const callerOf = (request: FastifyRequest): WebAppCaller => request.getDecorator<WebAppCaller>(CALLER);

/**
 * The routes an end user's page calls (`/web-apps/{id}/…`), with a web-app token: the user's own
 * threads of that web app, their runs streamed (projected for the page, or raw), resumed, answered.
 * The same queue, run event log and relay as `/api/runs`, so any replica serves every route.
 */
export const webAppRoutes: FastifyPluginAsyncZod<WebAppRoutesOptions> = async (app, options) => {
  const { webApps, affinity, streams, submissions, config, stores } = options;
  const { streamChunks, streamAffinityMiss } = runStreams(app, options);
  const { maxQueuedMessages } = config.tenantLimits;
  app.decorateRequest(CALLER, null);

  // A page on the host's origin reads which replica answered, to resume there (or anywhere).
  app.addHook("onRequest", async (_request, reply) => {
    reply.header("access-control-expose-headers", `${REPLICA_HEADER}, ${AFFINITY_ECHO_HEADER}`);
  });

  /** Runs before the body is validated: a request nobody may make is refused first, and reads nothing. */
  const identify = async (request: FastifyRequest) => {
    const id = idSchema.safeParse((request.params as { id?: unknown }).id);
    if (!id.success) throw new HttpError("INVALID_REQUEST", "Invalid web app id: 1-128 characters of A-Z a-z 0-9 . _ -");
    request.setDecorator(CALLER, await webApps.authorize(id.data, request.headers.authorization));
  };
  /** A limit over a minute: over it, `429 RATE_LIMITED` with `Retry-After`. */
  const perMinute = (max: number, keyOf: (request: FastifyRequest) => string, what: string) => {
    const check = app.createRateLimit({ max, timeWindow: 60_000, keyGenerator: keyOf });
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const outcome = await check(request);
      // Counted either way; `isAllowed` only says whether the key is on an allow list.
      if (outcome.isAllowed || !outcome.isExceeded) return;
      reply.header("retry-after", String(outcome.ttlInSeconds));
      throw new HttpError("RATE_LIMITED", `At most ${max} ${what}; retry in ${outcome.ttlInSeconds} s`);
    };
  };
  // Each end user's runs are limited (a visitor's too), and the tenant's limit holds as on its other run routes.
  const { webAppRunRateLimitPerMinute: perUser, runRateLimitPerMinute: perTenant, webAppVisitorRateLimitPerMinute: perAddress } = config;
  const runLimits = [
    ...(perUser > 0 ? [perMinute(perUser, (request) => `web-app:${callerOf(request).webApp.id}:${callerOf(request).user.userId}`, "runs per minute per user of this web app")] : []),
    ...(perTenant > 0 ? [perMinute(perTenant, (request) => `tenant:${callerOf(request).webApp.tenantId}`, "runs per minute per tenant")] : []),
  ];
  // A visitor who drops their token to take a new one escapes the per-user limit: new visitors are
  // limited by client address too, so one client cannot mint users faster than a few a minute. The
  // tenant's limits bound them all, whatever their number. The address is the connection's (no
  // X-Forwarded-For is trusted): behind a balancer it is the balancer's, as the README says.
  const visitorLimits = perAddress > 0 ? [perMinute(perAddress, (request) => `web-app-visitors:${(request.params as { id: string }).id}:${request.ip}`, "new visitors per minute from one address")] : [];

  /** The run's queue options; a model choice the web app does not offer is refused before anything is queued. */
  const runOptions = async (scope: ThreadRunScope, run: Omit<PageRun, "input">) => ({
    messageId: run.messageId,
    command: run.command,
    graph: await webApps.modelChoice(scope, run.modelKey),
    tenantQueueLimit: maxQueuedMessages > 0 ? maxQueuedMessages : undefined,
  });

  /** Streams a new run of a thread the caller owns; the stream's place is taken first, so a refused stream queues nothing. */
  const streamRun = async (request: FastifyRequest, reply: FastifyReply, threadId: string, run: PageRun, project?: ChunkProjection) => {
    const caller = callerOf(request);
    const { scope, place, result } = await submissions.submit(caller.webApp.tenantId, async () => {
      const { scope, agent } = await webApps.agentOf(caller, threadId);
      const place = streams.take(scope.tenantId);
      try {
        return { scope, place, result: await agent.addMessage(run.input, { ...(await runOptions(scope, run)), mode: "stream" }) };
      } catch (error) {
        place();
        throw error;
      }
    });
    try {
      const owner = await affinity.peerOwnerAfterGrace(scope);
      if (owner) return streamAffinityMiss(reply, owner, scope, result.messageId, place);
      return await follow(request, reply, result.stream, place, project);
    } catch (error) {
      // Given back at once when no stream opened (the stream's end gives it back otherwise; twice is harmless).
      place();
      throw error;
    }
  };

  /** Streams `chunks` until the run's stream ends, or the web app stops serving (disabled or removed, on any replica). */
  const follow = async (request: FastifyRequest, reply: FastifyReply, chunks: AsyncIterable<StreamChunk>, place: StreamPlace, project?: ChunkProjection) => {
    const { signal, release } = webApps.watch(callerOf(request).webApp.id);
    try {
      await streamChunks(reply, chunks, place, { project, signal });
    } finally {
      release();
    }
  };

  /** Follows a message's run again (`resume_stream`), from wherever the caller's stream stopped. */
  const followRun = async (request: FastifyRequest, reply: FastifyReply, scope: ThreadRunScope, messageId: string, chunks: AsyncIterable<StreamChunk>, project?: ChunkProjection) => {
    const owner = await affinity.peerOwner(scope);
    // Taken without an await before the stream opens: the stream's close gives its place back.
    const place = streams.take(scope.tenantId);
    if (owner) return streamAffinityMiss(reply, owner, scope, messageId, place);
    return follow(request, reply, chunks, place, project);
  };

  app.get(
    "/web-apps/:id/config",
    {
      schema: {
        tags,
        summary: "The web app's public appearance",
        description: "Public for a published web app; a draft answers only to a preview token, a disabled one `403`.",
        params: appParams,
        response: { 200: configView, ...runtimeErrors() },
      },
    },
    async (request) => {
      const webApp = await webApps.publicWebApp(request.params.id, request.headers.authorization);
      const { appearance } = webApp;
      return {
        id: webApp.id,
        name: webApp.name,
        title: appearance.title,
        welcome: appearance.welcome,
        quicks: appearance.quicks,
        accent_color: appearance.accentColor,
        allowed_origins: webApp.allowedOrigins,
        identity: { mode: webApp.identityMode },
      };
    },
  );

  app.post(
    "/web-apps/:id/visitors",
    {
      preHandler: visitorLimits,
      schema: {
        tags,
        summary: "A visitor token, for a web app whose identity mode is anonymous",
        description:
          "No token: a new visitor, with an id the gateway chooses. The visitor's own token, still valid, as `Authorization: Bearer`: the same visitor again, with a new expiry. " +
          "A published web app only (a draft opens to preview tokens, a signed one admits no visitors: `403`). New visitors are limited per client address (`AXIOM_WEB_APP_VISITOR_RATE_LIMIT_PER_MINUTE`).",
        params: appParams,
        body: z.strictObject({}).optional(),
        response: { 201: visitorView, ...runtimeErrors(...BODY_CODES, "RATE_LIMITED") },
      },
    },
    async (request, reply) => {
      const visitor = await webApps.admitVisitor(request.params.id, request.headers.authorization);
      return reply.status(201).send({ token: visitor.token, user_id: visitor.userId, expires_at: visitor.expiresAt });
    },
  );

  app.post(
    "/web-apps/:id/threads",
    {
      preValidation: identify,
      schema: {
        tags,
        summary: "Open a thread of the user's",
        params: appParams,
        body: z.strictObject({}).optional(),
        response: { 201: ownedThreadView, ...runtimeErrors(...BODY_CODES) },
      },
    },
    async (request, reply) => {
      const owned = await webApps.createThread(callerOf(request));
      return reply.status(201).send({ thread_id: owned.threadId, created_at: owned.createdAt });
    },
  );

  app.get(
    "/web-apps/:id/threads",
    {
      preValidation: identify,
      schema: {
        tags,
        summary: "The user's threads, oldest first, a page at a time",
        params: appParams,
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("threads", ownedThreadView), ...runtimeErrors("INVALID_CURSOR") },
      },
    },
    async (request) => pageBody("threads", await webApps.listThreads(callerOf(request), request.query), (owned) => ({ thread_id: owned.threadId, created_at: owned.createdAt })),
  );

  app.get(
    "/web-apps/:id/threads/:thread_id",
    { preValidation: identify, schema: { tags, summary: "A thread of the user's: its messages, and what it waits on", params: threadParams, response: { 200: threadMessagesView, ...runtimeErrors() } } },
    async (request) => {
      const { agent } = await webApps.agentOf(callerOf(request), request.params.thread_id);
      const { messages, interrupts } = await agent.getState();
      // The chat's turns: the user's messages and the assistant's answers; tool traffic stays the operator's.
      const turns = messages.flatMap((message): { id?: string; role: "user" | "assistant"; content: string }[] => {
        if (message.type === "human") return [{ id: message.id, role: "user", content: message.content }];
        if (message.type === "ai" && message.content) return [{ id: message.id, role: "assistant", content: message.content }];
        return [];
      });
      return { thread_id: request.params.thread_id, messages: turns, interrupts };
    },
  );

  app.post(
    "/web-apps/:id/threads/:thread_id/stream",
    {
      preValidation: identify,
      preHandler: runLimits,
      schema: { tags, summary: "Send the user's message and stream the answer, projected for the page", params: threadParams, body: streamBody, response: { 200: sse(pageStream), ...runtimeErrors(...RUN_CODES) } },
    },
    async (request, reply) => {
      const { message, message_id, model_key } = request.body;
      return streamRun(request, reply, request.params.thread_id, { input: { message }, messageId: message_id, modelKey: model_key }, toPageChunk);
    },
  );

  app.post(
    "/web-apps/:id/threads/:thread_id/stream/native",
    {
      preValidation: identify,
      preHandler: runLimits,
      schema: { tags, summary: "Send the user's message and stream the run's raw chunks", params: threadParams, body: streamBody, response: { 200: sse(nativeStream), ...runtimeErrors(...RUN_CODES) } },
    },
    async (request, reply) => {
      const { message, message_id, model_key } = request.body;
      return streamRun(request, reply, request.params.thread_id, { input: { message }, messageId: message_id, modelKey: model_key });
    },
  );

  app.post(
    "/web-apps/:id/threads/:thread_id/resume_stream",
    {
      preValidation: identify,
      schema: {
        tags,
        summary: "Follow a message's run again: replay its chunks after a position, then live ones",
        description: "The position is `message_id` and `after`, or the `Last-Event-ID` header; with both, they must name the same message.",
        params: threadParams,
        body: resumeStreamBody,
        headers: resumeStreamHeaders,
        response: { 200: sse(pageStream), ...runtimeErrors(...BODY_CODES, "TOO_MANY_STREAMS") },
      },
    },
    async (request, reply) => {
      const { messageId, index } = resumePoint(request.body, request.headers["last-event-id"]);
      const { scope, agent } = await webApps.agentOf(callerOf(request), request.params.thread_id);
      const message = await stores.queue.getMessage(messageId, queueScopeOf(scope));
      if (!message || message.threadId !== scope.threadId) throw new HttpError("NOT_FOUND", `Message ${messageId} not found on thread ${scope.threadId}`);
      return followRun(request, reply, scope, messageId, agent.chunkStream(messageId, index), request.body.view === "page" ? toPageChunk : undefined);
    },
  );

  app.post(
    "/web-apps/:id/threads/:thread_id/interrupts/:interrupt_id/resume",
    {
      preValidation: identify,
      preHandler: runLimits,
      schema: {
        tags,
        summary: "Answer what the thread waits on, and stream the run that goes on, projected for the page",
        params: interruptParams,
        body: interruptBody,
        response: { 200: sse(pageStream), ...runtimeErrors(...RUN_CODES) },
      },
    },
    async (request, reply) => {
      const { thread_id, interrupt_id } = request.params;
      const { agent } = await webApps.agentOf(callerOf(request), thread_id);
      const { interrupts } = await agent.getState();
      if (!interrupts.some((interrupt) => interrupt.id === interrupt_id)) throw new HttpError("NOT_FOUND", `Thread ${thread_id} waits on no interrupt ${interrupt_id}`);
      return streamRun(request, reply, thread_id, { input: {}, command: { resume: request.body.response } }, toPageChunk);
    },
  );

  app.post(
    "/web-apps/:id/runs",
    {
      preValidation: identify,
      preHandler: runLimits,
      schema: {
        tags,
        summary: "Queue the user's message on one of their threads, without following it",
        description: "Answers at once; follow the run with `resume_stream` and the answered `message_id`.",
        params: appParams,
        body: enqueueBody,
        response: { 202: queuedView, ...runtimeErrors(...RUN_CODES) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const caller = callerOf(request);
      const result = await submissions.submit(caller.webApp.tenantId, async () => {
        const { scope, agent } = await webApps.agentOf(caller, body.thread_id);
        return agent.addMessage({ message: body.message }, { ...(await runOptions(scope, { messageId: body.message_id, modelKey: body.model_key })), mode: "queue" });
      });
      return reply.status(202).send({ success: true as const, message_id: result.messageId, queued: true as const });
    },
  );

};
