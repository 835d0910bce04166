import type { FastifyInstance } from "fastify";

/**
 * How much of a refused request's body is read and discarded so that its client can read the answer.
 * Past it the connection is closed, as Fastify does at once: nothing bigger is worth receiving.
 */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Lets a client still uploading a body the gateway refused (a `413`, or a body it never parsed) read
 * the refusal. Fastify answers such a request with `connection: close`, and the socket is closed while
 * the client is still sending: its next write is reset, and many clients report that (`EPIPE`,
 * `ECONNRESET`) rather than the answer. Here the rest of the body is read and discarded instead, up to
 * {@link DRAIN_LIMIT_BYTES}, and the connection stays open for the client's next request, as HTTP
 * allows (RFC 9110, 15.5.14).
 */
export function installUnreadBodyDrain(app: FastifyInstance): void {
  app.addHook("onSend", async (request, reply) => {
    const incoming = request.raw;
    if (reply.getHeader("connection") !== "close" || incoming.readableEnded || incoming.destroyed) return;
    const declared = Number(request.headers["content-length"]);
    if (declared > DRAIN_LIMIT_BYTES) return;
    reply.removeHeader("connection");
    let read = 0;
    incoming.on("data", (chunk: Buffer) => {
      read += chunk.length;
      if (read > DRAIN_LIMIT_BYTES) incoming.socket.destroy();
    });
    incoming.resume();
  });
}
