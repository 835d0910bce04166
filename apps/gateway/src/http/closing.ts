import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { HttpError } from "./errors";

/** How often a closing gateway closes the connections no response is in flight on. */
const UNUSED_SWEEP_MS = 50;

/**
 * How long a connection may carry nothing before a closing gateway closes it: a client that has just
 * connected gets its request in and is refused with a 503 (which a balancer retries elsewhere) rather
 * than a reset.
 */
const UNUSED_GRACE_MS = 1_000;

/**
 * Once the gateway is closing, requests still arriving (on kept-alive connections) are refused with
 * `503 NOT_READY` in the API's error shape, the connection closed: the client retries on a replica that
 * stays. Replaces Fastify's own refusal (`return503OnClosing`, switched off), whose body is not ours.
 * Responses in flight are let end; every connection is closed as soon as none is in flight on it.
 */
export function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  const connections = new ServerConnections(app.server);
  app.addHook("preClose", async () => {
    closing = true;
    if (!app.server.listening) return;
    // Unref'd: should the server never finish closing, the sweep does not keep the process alive either.
    const sweep = setInterval(() => connections.closeUnused(), UNUSED_SWEEP_MS).unref();
    app.server.once("close", () => clearInterval(sweep));
  });
  app.addHook("onRequest", async (_request, reply) => {
    if (!closing) return;
    reply.header("connection", "close");
    throw new HttpError("NOT_READY", "This replica is shutting down; retry on another");
  });
}

/**
 * The server's connections, each with how many of its responses are in flight. Node's `server.close()`
 * closes the connections idle at that moment only, and takes one that never carried a request for
 * busy: one whose response ends later (a `wait` run, an MCP call), or a client's spare (a browser's
 * preconnect, an HTTP client's pool), stays open until its client drops it or a timeout passes (72 s
 * kept alive, 60 s waiting for headers). The close waits that long, past the shutdown's bound, and
 * the runs are not handed back. (Plain HTTP: TLS ends at the balancer, so a request's socket is
 * the connection's.)
 */
class ServerConnections {
  /** Per connection: its responses in flight, and since when it has had none. */
  private readonly connections = new Map<Socket, { inFlight: number; unusedSince: number }>();

  constructor(server: Server) {
    server.on("connection", (socket: Socket) => {
      this.connections.set(socket, { inFlight: 0, unusedSince: Date.now() });
      socket.once("close", () => this.connections.delete(socket));
    });
    server.on("request", ({ socket }: IncomingMessage, response: ServerResponse) => {
      this.count(socket, 1);
      response.once("close", () => this.count(socket, -1));
    });
  }

  /**
   * Closes every connection with no response in flight for {@link UNUSED_GRACE_MS}: idle, never used,
   * or its next request not yet in (it would be refused).
   */
  closeUnused(): void {
    const before = Date.now() - UNUSED_GRACE_MS;
    for (const [socket, { inFlight, unusedSince }] of this.connections) if (inFlight === 0 && unusedSince <= before) socket.destroy();
  }

  private count(socket: Socket, change: number): void {
    const connection = this.connections.get(socket);
    if (!connection) return;
    connection.inFlight += change;
    if (connection.inFlight === 0) connection.unusedSince = Date.now();
  }
}
