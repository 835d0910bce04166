import type { FastifyPluginAsync } from "fastify";
import { gatewayContextOf } from "../context/gatewayContext";

/** `GET /metrics` in the Prometheus text format: this gateway's own registry (see `metrics/`). */
export const metricsRoute: FastifyPluginAsync = async (app) => {
  const { registry } = gatewayContextOf(app).metrics;
  app.get("/metrics", async (_request, reply) => {
    const body = await registry.metrics();
    return reply.type(registry.contentType).send(body);
  });
};
