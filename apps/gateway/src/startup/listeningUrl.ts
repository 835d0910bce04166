import type { FastifyInstance } from "fastify";

/** The URL a listening server answers at (an IPv6 host in brackets). */
export function listeningUrl(app: FastifyInstance, host: string): string {
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}
