import { Readable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ConfigError } from "../configError";
import type { ModuleExport } from "./langgraphConfig";
import { importExport } from "./operatorModules";

/** The operator's custom routes (`http.app` of a `langgraph.json`): a Hono app, or anything that answers a `Request`. */
export interface OperatorApp {
  fetch(request: Request): Response | Promise<Response>;
}

/** Loads the operator's app; one that is missing or cannot answer a request stops the gateway. */
export async function loadOperatorApp(source: ModuleExport): Promise<OperatorApp> {
  try {
    const app = await importExport(source);
    if (typeof (app as Partial<OperatorApp> | null)?.fetch !== "function") throw new Error("is not an app: export a Hono app, or an object with fetch(request)");
    return app as OperatorApp;
  } catch (error) {
    throw new ConfigError("AXIOM_LANGGRAPH_CONFIG", `http.app (${source.file}:${source.exportName}) ${(error as Error).message.split("\n")[0]}`);
  }
}

/**
 * Answers a request the gateway has no route for with the operator's app (its own 404 included): the
 * request goes to it as a WHATWG `Request`, and its `Response` streams back as it is written. Paths
 * under the API's prefixes (`/runs/…`, say) needed a principal as the API's do; the others are the
 * operator's to guard.
 */
export async function answerWithOperatorApp(app: OperatorApp, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const response = await app.fetch(requestOf(request));
  reply.status(response.status);
  response.headers.forEach((value, name) => reply.header(name, value));
  return reply.send(response.body ? Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]) : null);
}

function requestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const hasBody = request.body !== undefined && request.method !== "GET" && request.method !== "HEAD";
  const body = !hasBody ? undefined : typeof request.body === "string" || Buffer.isBuffer(request.body) ? request.body : JSON.stringify(request.body);
  return new Request(`http://${request.headers.host ?? "localhost"}${request.url}`, { method: request.method, headers, ...(body === undefined ? {} : { body }) });
}
