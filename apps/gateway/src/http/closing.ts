import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { HttpError } from "./errors";

/** How often a closing gateway closes the connections no response is in flight on. */
const UNUSED_SWEEP_MS = 50;

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
  private readonly responsesInFlight = new Map<Socket, number>();

  constructor(server: Server) {
    server.on("connection", (socket: Socket) => {
      this.responsesInFlight.set(socket, 0);
      socket.once("close", () => this.responsesInFlight.delete(socket));
    });
    server.on("request", ({ socket }: IncomingMessage, response: ServerResponse) => {
      this.count(socket, 1);
      response.once("close", () => this.count(socket, -1));
    });
  }

  /** Closes every connection with no response in flight: idle, never used, or its next request not yet in (it would be refused). */
  closeUnused(): void {
    for (const [socket, inFlight] of this.responsesInFlight) if (inFlight === 0) socket.destroy();
  }

  private count(socket: Socket, change: number): void {
    const inFlight = this.responsesInFlight.get(socket);
    if (inFlight !== undefined) this.responsesInFlight.set(socket, inFlight + change);
  }
}
