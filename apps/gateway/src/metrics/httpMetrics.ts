import type { FastifyInstance } from "fastify";
import type { GatewayMetrics } from "./gatewayMetrics";

/**
 * Times every response by its route pattern (`/api/threads/:id`, never the raw URL: ids would make a
 * series per thread); requests no route matched share `unmatched`.
 */
export function installHttpMetrics(app: FastifyInstance, metrics: GatewayMetrics): void {
  app.addHook("onResponse", async (request, reply) => {
    metrics.httpRequestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? "unmatched", status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
}
