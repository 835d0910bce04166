import type { FastifyInstance } from "fastify";

/**
 * One info line per answered request: method, path, route pattern, status and time. Fastify's own two
 * lines (`incoming request`, `request completed`) are turned off where the server is built; a client
 * that leaves before its answer is logged too, with the status it was about to get.
 */
export function installRequestLog(app: FastifyInstance): void {
  app.addHook("onResponse", async (request, reply) => {
    const path = request.url.split("?", 1)[0];
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    request.log.info(
      { method: request.method, path, route: request.routeOptions.url ?? "unmatched", status: reply.statusCode, ms },
      `${request.method} ${path} ${reply.statusCode} ${ms} ms`,
    );
  });
}
