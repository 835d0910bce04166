import { LogController } from "fastify";
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * One line per request, when it is answered: method, path, route pattern, status and time, at info
 * (error, with the error, for a response that failed while being sent). Fastify's own pair of lines
 * (`incoming request`, `request completed`) is replaced; its other lines (a stream cut early, say) are kept.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const path = request.url.split("?", 1)[0];
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    const fields = { method: request.method, path, route: request.routeOptions.url ?? "unmatched", status: reply.statusCode, ms };
    const line = `${request.method} ${path} ${reply.statusCode} ${ms} ms`;
    if (error) reply.log.error({ ...fields, err: error }, line);
    else reply.log.info(fields, line);
  }
}
