import Fastify, { type FastifyBaseLogger } from "fastify";
import type { ReplicaRole } from "@axiom-lattice/protocols";
import { HttpError, installErrorHandling } from "../http/errors";
import { healthRoutes } from "../routes/health";
import { listeningUrl } from "./listeningUrl";

/** The gateway's port while startup waits for the database. */
export interface StartingServer {
  /** The port it listens on (the gateway takes it over). */
  readonly port: number;
  readonly url: string;
  /** Why the gateway is not ready yet, as `/ready` reports it. */
  reason: string;
  close(): Promise<void>;
}

/**
 * Listens while startup waits for the database, so probes and clients get answers rather than refused
 * connections: `/health` 200 (the process is alive), `/ready` 503 with the reason, every other route
 * `503 NOT_READY` with `Retry-After`, in the API's error shape. Closed just before the gateway listens
 * on the same port.
 */
export async function listenWhileStarting(options: {
  port: number;
  host: string;
  role: ReplicaRole;
  logger: FastifyBaseLogger;
  reason: string;
}): Promise<StartingServer> {
  const app = Fastify({ loggerInstance: options.logger, return503OnClosing: false });
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  installErrorHandling(app);
  const server = { reason: options.reason };
  await app.register(healthRoutes, {
    role: options.role,
    readiness: [
      {
        name: "database",
        check: async () => {
          throw new Error(`starting: waiting for the database (${server.reason})`);
        },
      },
    ],
  });
  app.all("/*", async () => {
    throw new HttpError("NOT_READY", "This replica is starting: it waits for its database; retry shortly");
  });
  await app.listen({ port: options.port, host: options.host });
  const url = listeningUrl(app, options.host);
  return Object.assign(server, { port: Number(new URL(url).port), url, close: () => app.close() });
}
