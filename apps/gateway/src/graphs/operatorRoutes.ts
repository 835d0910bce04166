import { Readable } from "node:stream";
import { type FastifyInstance, type FastifyReply, type FastifyRequest, errorCodes } from "fastify";
import { ConfigError } from "../configError";
import type { ModuleExport } from "./langgraphConfig";
import { importExport } from "./operatorModules";

/** The operator's custom routes (`http.app` of a `langgraph.json`): a Hono app, or anything that answers a `Request`. */
export interface OperatorApp {
  fetch(request: Request, env?: unknown): Response | Promise<Response>;
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

/** What answers a request the gateway has no route for. */
export type UnroutedHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/**
 * Puts the operator's app beside the API. A Hono app goes in front, as the LangGraph server mounts it:
 * its middleware wraps every request (the API's included, after authentication), its routes come
 * before the API's, and what it does not route goes on to the gateway with the headers its middleware
 * set. (As there, a body its middleware parses is parsed again by the API: changes to it are not seen;
 * a run's `config.configurable` carries the caller's `x-…` headers instead.) Any other `fetch` handler
 * cannot say what it did not route, so it answers only the paths the gateway has no route for
 * (returned, for the not-found handler). The operator's own paths are theirs to guard: they need no
 * principal.
 */
export function installOperatorRoutes(app: FastifyInstance, operatorApp: OperatorApp, bodyLimit: number): UnroutedHandler | undefined {
  if (!isHonoApp(operatorApp)) return (request, reply) => sendResponse(reply, operatorApp.fetch(requestOf(request, bodyOf(request))));
  const front = frontOf(operatorApp);
  // Callback style: a hook that answers does not call `done`, and so may answer with a stream.
  app.addHook("preParsing", (request, reply, payload, done) => {
    const run = async () => {
      const body = hasBody(request) ? await readPayload(payload, bodyLimit) : undefined;
      const outcome = await front(requestOf(request, body));
      if ("response" in outcome) return void (await sendResponse(reply, outcome.response));
      outcome.headers.forEach((value, name) => void reply.header(name, value));
      done(null, body === undefined ? undefined : Readable.from([body]));
    };
    run().catch((error: Error) => done(error));
  });
  return undefined;
}

/** The parts of a Hono app that mounting it in front uses (the operator's copy of Hono, whatever its version). */
interface HonoApp extends OperatorApp {
  routes: unknown[];
  route(path: string, app: HonoApp): HonoApp;
  all(path: string, handler: (context: HonoContext) => Promise<Response>): HonoApp;
}

interface HonoContext {
  env: PassedOn;
}

/** Whether a request got through the operator's app to the gateway. */
interface PassedOn {
  reached: boolean;
}

type FrontOutcome = { response: Response } | { headers: Headers };

const isHonoApp = (app: OperatorApp): app is HonoApp => {
  const candidate = app as Partial<HonoApp>;
  return Array.isArray(candidate.routes) && typeof candidate.route === "function" && typeof candidate.all === "function";
};

/** Marks the answer of the front's last route: the request goes on to the gateway. */
const PASSED_ON_HEADER = "x-axiom-operator-passed-on";

/**
 * A new app of the operator's Hono with the operator's app mounted at the root and, last, a route that
 * passes everything else on. Its middleware runs around that route as around its own; the headers it
 * set on the answer reach the gateway's.
 */
function frontOf(operatorApp: HonoApp): (request: Request) => Promise<FrontOutcome> {
  const front = new (operatorApp.constructor as new () => HonoApp)();
  front.route("/", operatorApp);
  front.all("*", async (context) => {
    context.env.reached = true;
    return new Response(null, { status: 204, headers: { [PASSED_ON_HEADER]: "1" } });
  });
  return async (request) => {
    const passedOn: PassedOn = { reached: false };
    const response = await front.fetch(request, passedOn);
    if (!passedOn.reached || !response.headers.has(PASSED_ON_HEADER)) return { response };
    const headers = new Headers();
    response.headers.forEach((value, name) => {
      if (name !== PASSED_ON_HEADER && name !== "content-type" && name !== "content-length") headers.set(name, value);
    });
    return { headers };
  };
}

const hasBody = (request: FastifyRequest) => request.method !== "GET" && request.method !== "HEAD";

/** The request's body, refused past the gateway's limit as Fastify refuses it. */
async function readPayload(payload: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of payload) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    length += buffer.length;
    if (length > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** A parsed body as it came (the not-found handler runs after parsing). */
function bodyOf(request: FastifyRequest): Buffer | string | undefined {
  if (!hasBody(request) || request.body === undefined) return undefined;
  return typeof request.body === "string" || Buffer.isBuffer(request.body) ? request.body : JSON.stringify(request.body);
}

function requestOf(request: FastifyRequest, body: Buffer | string | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return new Request(`http://${request.headers.host ?? "localhost"}${request.url}`, { method: request.method, headers, ...(body === undefined ? {} : { body }) });
}

/** Sends the operator's answer as it is written. */
async function sendResponse(reply: FastifyReply, answer: Response | Promise<Response>): Promise<FastifyReply> {
  const response = await answer;
  reply.status(response.status);
  response.headers.forEach((value, name) => void reply.header(name, value));
  return reply.send(response.body ? Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]) : null);
}
