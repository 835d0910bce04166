import cors from "@fastify/cors";
import rateLimit from "@fastify/rate-limit";
import { AFFINITY_ECHO_HEADER, AGENT_AFFINITY_HEADER, REPLICA_HEADER, affinityEchoHeaders } from "@axiom-lattice/protocols";
import { RunAffinity } from "@axiom-lattice/agent";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import helmet from "helmet";
import { setTimeout as delay } from "node:timers/promises";
import { pino } from "pino";
import pinoPretty from "pino-pretty";
import { createApiKeyVerifier } from "./auth/apiKeyVerifier";
import { installAuthentication } from "./auth/authentication";
import { createTokenVerifier } from "./auth/tokenVerifier";
import { installStrictApiQueries } from "./http/strictQuery";
import { installUnreadBodyDrain } from "./http/unreadBody";
import type { GatewayConfig } from "./config";
import { type GatewayContext, createGatewayContext, decorateGatewayContext } from "./context/gatewayContext";
import { BODY_LIMIT_BYTES } from "./defaults";
import { refuseWhileClosing } from "./http/closing";
import { HttpError, installErrorHandling } from "./http/errors";
import { installHttpMetrics } from "./metrics/httpMetrics";
import { zodValidatorCompiler } from "./http/validation";
import { registerApiReference } from "./openapi/apiReference";
import { installRouteCatalog } from "./openapi/routeCatalog";
import { assistantRoutes } from "./routes/assistants";
import { modelProviderRoutes } from "./routes/modelProviders";
import { healthRoutes } from "./routes/health";
import { rootRoute } from "./routes/root";
import type { ReadinessCheck } from "./stores/gatewayStores";
import { metricsRoute } from "./routes/metrics";
import { clusterRoute } from "./routes/cluster";
import { mcpConfigRoutes } from "./routes/mcpConfigs";
import { pluginRoutes } from "./routes/plugins";
import { projectRoutes } from "./routes/projects";
import { roomRoutes } from "./routes/rooms";
import { runRoutes } from "./routes/runs";
import { type ScheduleRoutesOptions, scheduleRoutes } from "./routes/schedules";
import { taskEventRoutes } from "./routes/taskEvents";
import { taskRoutes } from "./routes/tasks";
import { threadRoutes } from "./routes/threads";
import { LANGGRAPH_EXPOSED_HEADERS } from "./langgraph/runHeaders";
import { langgraphApi } from "./langgraph/langgraphApi";
import { installOperatorRoutes } from "./graphs/operatorRoutes";
import { RequestLogController } from "./http/requestLog";
import { findPlaygroundPage, registerPlaygroundPage } from "./playground/playgroundPage";
import { webAppOperatorRoutes } from "./routes/webApps";
import { a2aRoutes } from "./a2a/a2aRoutes";
import { apiKeyRoutes } from "./routes/apiKeys";
import { webAppRoutes } from "./webApps/webAppRoutes";
import { mcpServerRoutes } from "./mcpServer/mcpServerRoutes";
import { findEmbedBuild, registerEmbedPage } from "./webApps/embedPage";

/**
 * The process's structured logger: pino JSON lines carrying the replica id, or (`LOG_FORMAT=pretty`)
 * the same records as pino-pretty prints them for a terminal, colored when stdout is one.
 */
export function createGatewayLogger(config: Pick<GatewayConfig, "logLevel" | "logFormat" | "replicaId">): FastifyBaseLogger {
  const options = { level: config.logLevel, base: { replica: config.replicaId } };
  if (config.logFormat === "json") return pino(options);
  return pino(options, pinoPretty({ colorize: process.stdout.isTTY, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname", sync: true }));
}

/** How long a stopping process waits for its last log lines to reach a pipe nobody reads. */
const LOG_FLUSH_WAIT_MS = 2_000;

/** What the logger's destination (pino's sonic-boom) shows of its writes. */
interface LogDestination {
  /** A write is in flight: one a full pipe refused is retried on a timer, holding its lines. */
  _writing?: boolean;
  flushSync?: () => void;
  /** Drops what is buffered; pino's exit handler then leaves the destination alone. */
  destroy?: () => void;
}

const destinationOf = (logger: FastifyBaseLogger) => (logger as unknown as Record<symbol, LogDestination | undefined>)[pino.symbols.streamSym];

/**
 * Resolves once the logger's buffered lines are written, in order, or dropped: a write a full pipe
 * refused is retried later, which would put its lines after anything written meanwhile (an exit's last
 * word on stderr). The write in flight is awaited (a bounded time), then the rest is written
 * synchronously, which `flushSync` alone would do before the write in flight. A pipe nobody reads
 * keeps its write in flight: its lines are dropped then ({@link abandonLog}), since pino's own flush at
 * exit would retry it forever and the replica would never stop. A pretty logger's lines pass through a
 * stream without that buffer.
 */
export async function flushLog(logger: FastifyBaseLogger): Promise<void> {
  const destination = destinationOf(logger);
  const deadline = Date.now() + LOG_FLUSH_WAIT_MS;
  while (destination?._writing && Date.now() < deadline) await delay(10);
  if (destination?._writing) abandonLog(logger);
  else destination?.flushSync?.();
}

/** Drops the logger's unwritten lines, so that nothing at exit waits for a pipe nobody reads. */
export function abandonLog(logger: FastifyBaseLogger): void {
  destinationOf(logger)?.destroy?.();
}

export interface BuildGatewayOptions {
  /** The logger `start()` created before the context, so startup lines share its fields. */
  logger?: FastifyBaseLogger;
  /** The stores and agents to serve; by default one is created from `config` and closed with the server. */
  context?: GatewayContext;
  /** Extra checks behind `/ready`. */
  readiness?: ReadinessCheck[];
  /** The built chat page's folder, instead of the playground package's build (tests). */
  playgroundRoot?: string;
  /** A scheduler to serve instead of the context's own (tests). */
  schedules?: Partial<ScheduleRoutesOptions>;
}

/** Builds the HTTP server without listening: tests drive it through `inject`, `start()` listens. */
export async function buildGateway(config: GatewayConfig, options: BuildGatewayOptions = {}): Promise<FastifyInstance> {
  const logger = options.logger ?? createGatewayLogger(config);
  const app = Fastify({
    loggerInstance: logger,
    logController: new RequestLogController(),
    bodyLimit: BODY_LIMIT_BYTES,
    // Ids in routes are bounded; long URLs are never legitimate here.
    routerOptions: { maxParamLength: 256 },
    // Requests arriving while closing are refused by refuseWhileClosing, in the API's error shape.
    return503OnClosing: false,
    // Registering the routes compiles their schemas, which took a loaded two-core machine over
    // Fastify's default 10 s (a host starting several replicas at once): a start that slow is not a hang.
    pluginTimeout: 60_000,
  });

  // Routes declare zod schemas: they validate requests and document the API (/openapi.json). Answers
  // are sent as the handlers build them; tests check each against its documented schema.
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  installRouteCatalog(app);

  const context = options.context ?? (await createGatewayContext(config, logger));
  if (!options.context) app.addHook("onClose", () => context.close());
  decorateGatewayContext(app, context);
  const { metrics } = context;
  installHttpMetrics(app, metrics);

  // Helmet's defaults, but for `upgrade-insecure-requests`: it would send the pages a gateway serves
  // over plain HTTP on a LAN address (/playground, /docs) to fetch their scripts over https, where
  // nothing listens. A gateway behind TLS is pinned to https by Strict-Transport-Security instead.
  // Helmet's middleware is built once (@fastify/helmet builds it anew for every request); a route
  // that needs other headers (the web apps' frame-ancestors) sets them over these.
  const securityHeaders = helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } });
  app.addHook("onRequest", (request, reply, done) => securityHeaders(request.raw, reply.raw, () => done()));
  // Browsers on other origins are refused unless the operator lists them (same-origin by default).
  await app.register(cors, {
    origin: config.corsOrigins.length > 0 ? config.corsOrigins : false,
    exposedHeaders: [REPLICA_HEADER, AFFINITY_ECHO_HEADER, ...LANGGRAPH_EXPOSED_HEADERS],
  });
  // Off for every route but those that opt in (run creation), keyed by the tenant once it is known.
  await app.register(rateLimit, {
    global: false,
    hook: "preHandler",
    errorResponseBuilder: (_request, { max, after }) => new HttpError("RATE_LIMITED", `At most ${max} runs per minute per tenant; retry in ${after}`),
  });

  app.addHook("onRequest", async (request, reply) => {
    reply.header(REPLICA_HEADER, context.replicaId);
    for (const [name, value] of Object.entries(affinityEchoHeaders(request.headers[AGENT_AFFINITY_HEADER]))) {
      reply.header(name, value);
    }
  });

  const { operatorApp } = context.graphs;
  installUnreadBodyDrain(app);
  installErrorHandling(app, operatorApp && installOperatorRoutes(app, operatorApp, BODY_LIMIT_BYTES));
  refuseWhileClosing(app);
  installAuthentication(app, {
    jwt: config.auth.required ? await createTokenVerifier(config.auth) : undefined,
    apiKeys: createApiKeyVerifier(context.stores.apiKeys, { logger: context.logger }),
  });
  // A worker's port is its operators': health, readiness and metrics. Clients reach its runs through the api replicas.
  const servesApi = config.role !== "worker";
  if (servesApi) await registerApiReference(app);
  const playground = servesApi && config.playground && (await registerPlaygroundPage(app, options.playgroundRoot ?? findPlaygroundPage()));
  await app.register(rootRoute, { servesApi, playground, authRequired: config.auth.required });
  await app.register(healthRoutes, { role: config.role, readiness: [...context.stores.readiness, ...(options.readiness ?? [])] });
  await app.register(metricsRoute, { token: config.metricsToken, metrics });
  if (!servesApi) return app;
  installStrictApiQueries(app);
  // Each route plugin is given what it uses of the context, and nothing else of it.
  const { stores, agents, mcp, plugins, roomEvents, notifiers, tasks, streams, submissions, replicaId, schedules } = context;
  const settings = context.config;
  await app.register(assistantRoutes, { stores, config: settings, mcp, plugins, agents });
  await app.register(modelProviderRoutes, { stores, config: settings, agents });
  await app.register(projectRoutes, { stores });
  await app.register(mcpConfigRoutes, { stores, mcp });
  await app.register(pluginRoutes, { plugins });
  await app.register(roomRoutes, { stores, roomEvents, streams, config: settings, metrics });
  await app.register(taskRoutes, { tasks, stores });
  await app.register(taskEventRoutes, { notifiers, streams, config: settings, metrics });
  await app.register(threadRoutes, { stores, agents });
  // Strict affinity: a run's stream is served by the replica running its thread alone (replicas named, no relay).
  const affinity = new RunAffinity({ leases: stores.lease, replicaId, strict: settings.replicaAffinity && !settings.streamRelay, graceMs: settings.affinityGraceMs });
  await app.register(runRoutes, { stores, agents, affinity, streams, submissions, config: settings, metrics });
  await app.register(webAppOperatorRoutes, { stores, runtime: context.webApps });
  await app.register(apiKeyRoutes, { stores });
  await registerEmbedPage(app, { root: findEmbedBuild(), stores });
  await app.register(webAppRoutes, { webApps: context.webApps, stores, affinity, streams, submissions, config: settings, metrics });
  await app.register(clusterRoute, { replicaId, stores });
  await app.register(a2aRoutes, { stores, agents, config: settings, streams, submissions, metrics });
  await app.register(langgraphApi, { stores, graphs: context.graphs, agents, config: settings, logger: context.logger, schedules, mcp, plugins, streams, submissions, metrics });
  await app.register(scheduleRoutes, { client: schedules, stores, ...options.schedules });
  await app.register(mcpServerRoutes, { tools: context.assistantTools, streams, config: settings });
  return app;
}
