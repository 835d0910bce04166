import cors from "@fastify/cors";
import { getReplicaId, setLogger } from "@axiom-lattice/core";
import { pino } from "pino";
import { AFFINITY_ECHO_HEADER, AGENT_AFFINITY_HEADER, REPLICA_HEADER, affinityEchoHeaders } from "@axiom-lattice/protocols";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { GatewayConfig } from "./config";
import { installErrorHandling } from "./http/errors";
import { registerAssistantRoutes } from "./routes/assistants";
import { type ReadinessCheck, registerHealthRoutes } from "./routes/health";
import { registerMetricsRoute } from "./routes/metrics";
import { registerRunRoutes } from "./routes/runs";
import { type ScheduleRoutesOptions, registerScheduleRoutes } from "./routes/schedules";
import { registerThreadRoutes } from "./routes/threads";
import { type GatewayRuntime, createGatewayRuntime } from "./runtime/gatewayRuntime";

/** Largest request body accepted; larger ones answer 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The process's structured logger: pino JSON lines carrying the replica id. */
export function createGatewayLogger(config: Pick<GatewayConfig, "logLevel">): FastifyBaseLogger {
  return pino({ level: config.logLevel, base: { replica: getReplicaId() } });
}

export interface BuildGatewayOptions {
  /** The logger `start()` created before the runtime, so startup lines share its fields. */
  logger?: FastifyBaseLogger;
  /** The stores and agents to serve; by default one is created from `config` and closed with the server. */
  runtime?: GatewayRuntime;
  /** Extra checks behind `/ready`. */
  readiness?: ReadinessCheck[];
  /** A scheduler to serve instead of the runtime's own (tests). */
  schedules?: ScheduleRoutesOptions;
}

/** Builds the HTTP server without listening: tests drive it through `inject`, `start()` listens. */
export async function buildGateway(config: GatewayConfig, options: BuildGatewayOptions = {}): Promise<FastifyInstance> {
  const replicaId = getReplicaId();
  const logger = options.logger ?? createGatewayLogger(config);
  // Core components log through the same logger, so every line carries the replica.
  setLogger(logger);
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: BODY_LIMIT_BYTES,
    // Ids in routes are bounded; long URLs are never legitimate here.
    routerOptions: { maxParamLength: 256 },
  });

  const runtime = options.runtime ?? (await createGatewayRuntime(config));
  if (!options.runtime) app.addHook("onClose", () => runtime.close());

  await app.register(cors, {
    origin: true,
    exposedHeaders: [REPLICA_HEADER, AFFINITY_ECHO_HEADER],
  });

  app.addHook("onRequest", async (request, reply) => {
    reply.header(REPLICA_HEADER, replicaId);
    for (const [name, value] of Object.entries(affinityEchoHeaders(request.headers[AGENT_AFFINITY_HEADER]))) {
      reply.header(name, value);
    }
  });

  installErrorHandling(app);
  registerHealthRoutes(app, [...runtime.stores.readiness, ...(options.readiness ?? [])]);
  registerMetricsRoute(app, runtime);
  registerAssistantRoutes(app, runtime);
  registerThreadRoutes(app, runtime);
  registerRunRoutes(app, runtime);
  registerScheduleRoutes(app, options.schedules ?? { client: runtime.schedules });
  return app;
}
