import type { FastifyInstance } from "fastify";
import { HttpError } from "./errors";

/**
 * Once the gateway is closing, requests still arriving (on kept-alive connections) are refused with
 * `503 NOT_READY` in the API's error shape, the connection closed: the client retries on a replica that
 * stays. Replaces Fastify's own refusal (`return503OnClosing`, switched off), whose body is not ours.
 */
export function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onRequest", async (_request, reply) => {
    if (!closing) return;
    reply.header("connection", "close");
    throw new HttpError("NOT_READY", "This replica is shutting down; retry on another");
  });
}
