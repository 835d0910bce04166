import { LogController } from "fastify";
import type { FastifyReply, FastifyRequest } from "fastify";
import { streamLengthOf } from "./streamLength";

/**
 * One line per request, when it is answered: method, path, route pattern, status and time, at info
 * (error, with the error, for a response that failed while being sent). A stream is logged at its end,
 * with the events and bytes it wrote. Fastify's own pair of lines
 * (`incoming request`, `request completed`) is replaced; its other lines (a stream cut early, say) are kept.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (!this.isLogDisabled(request)) logRequestLine(reply, { error });
  }
}

const logged = new WeakSet<FastifyReply>();

/**
 * Writes the request line of `reply`, once: a stream `cut` before its end (the client left, or this
 * replica cut it) is logged by its writer, as Fastify logs only a response that finished.
 */
export function logRequestLine(reply: FastifyReply, { error, cut = false }: { error?: Error | null; cut?: boolean }): void {
  if (logged.has(reply)) return;
  logged.add(reply);
  const { request } = reply;
  const path = request.url.split("?", 1)[0];
  const ms = Math.round(reply.elapsedTime * 10) / 10;
  const stream = streamLengthOf(reply.raw);
  const fields = { method: request.method, path, route: request.routeOptions.url ?? "unmatched", status: reply.statusCode, ms, ...stream, ...(cut ? { cut } : {}) };
  const length = stream ? ` (${stream.events} events, ${stream.bytes} bytes${cut ? ", cut before its end" : ""})` : "";
  const line = `${request.method} ${path} ${reply.statusCode} ${ms} ms${length}`;
  if (error) reply.log.error({ ...fields, err: error }, line);
  else reply.log.info(fields, line);
}
