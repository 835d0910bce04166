import cors from "@fastify/cors";
import { getReplicaId } from "@axiom-lattice/core";
import { AFFINITY_ECHO_HEADER, REPLICA_HEADER } from "@axiom-lattice/protocols";
import Fastify, { type FastifyInstance } from "fastify";
import type { GatewayConfig } from "./config";
import { installErrorHandling } from "./http/errors";
import { type ReadinessCheck, registerHealthRoutes } from "./routes/health";

/** Largest request body accepted; larger ones answer 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface BuildGatewayOptions {
  /** Extra checks behind `/ready` (stores reachable, migrations applied). */
  readiness?: ReadinessCheck[];
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

  await app.register(cors, {
    origin: true,
    exposedHeaders: [REPLICA_HEADER, AFFINITY_ECHO_HEADER],
  });

  app.addHook("onRequest", async (_request, reply) => {
    reply.header(REPLICA_HEADER, replicaId);
  });

  installErrorHandling(app);
  registerHealthRoutes(app, options.readiness ?? []);
  return app;
}
