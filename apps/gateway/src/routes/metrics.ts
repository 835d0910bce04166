import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyPluginAsync } from "fastify";
import type { GatewayMetrics } from "../metrics/gatewayMetrics";
import { HttpError } from "../http/errors";

export interface MetricsRouteOptions {
  /** The bearer token a scrape must present (`AXIOM_METRICS_TOKEN`); none: the route is public. */
  token?: string;
  /** This gateway's instruments. */
  metrics: Pick<GatewayMetrics, "registry">;
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Whether `authorization` is `Bearer <token>`, compared in constant time (digests: lengths leak nothing). */
function presents(authorization: string | undefined, token: string): boolean {
  const presented = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
  return presented !== undefined && timingSafeEqual(digest(presented), digest(token));
}

/**
 * `GET /metrics` in the Prometheus text format: this gateway's own registry (see `metrics/`). Metrics
 * span every tenant, so tenant tokens never open it: it is public, or closed by a token of its own
 * that Prometheus sends (`authorization: { credentials: … }` in its scrape config).
 */
export const metricsRoute: FastifyPluginAsync<MetricsRouteOptions> = async (app, { token, metrics }) => {
  const { registry } = metrics;
  app.get("/metrics", async (request, reply) => {
    if (token !== undefined && !presents(request.headers.authorization, token)) {
      reply.header("www-authenticate", `Bearer realm="axiom-lattice metrics"`);
      throw new HttpError("UNAUTHENTICATED", "GET /metrics needs Authorization: Bearer <AXIOM_METRICS_TOKEN>");
    }
    const body = await registry.metrics();
    return reply.type(registry.contentType).send(body);
  });
};
