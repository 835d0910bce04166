import cors from "@fastify/cors";
import { getReplicaId, setLogger } from "@axiom-lattice/core";
import { AFFINITY_ECHO_HEADER, AGENT_AFFINITY_HEADER, REPLICA_HEADER, affinityEchoHeaders } from "@axiom-lattice/protocols";
import Fastify, { type FastifyInstance } from "fastify";
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

export interface BuildGatewayOptions {
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
  const app = Fastify({
    logger: { level: config.logLevel, base: { replica: replicaId } },
    bodyLimit: BODY_LIMIT_BYTES,
    // Ids in routes are bounded; long URLs are never legitimate here.
    routerOptions: { maxParamLength: 256 },
  });
  // Core components log through the server's logger, so every line carries the replica.
  setLogger(app.log);

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
