import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { principalOf } from "../auth/authentication";
import { type Principal, grants } from "../auth/principal";
import type { GatewayConfig } from "../config";
import { type ErrorAnswer, HttpError, errorAnswerOf } from "../http/errors";
import { noContent } from "../http/ids";
import type { TenantStreams } from "../http/tenantStreams";
import { BODY_CODES, apiErrors } from "../openapi/errorResponses";
import { runRateLimit } from "../shared/runRateLimit";
import { GATEWAY_VERSION } from "../version";
import type { AssistantToolServer } from "./assistantToolServer";

export interface McpServerRoutesOptions {
  tools: AssistantToolServer;
  streams: TenantStreams;
  config: Pick<GatewayConfig, "runRateLimitPerMinute">;
}

const tags = ["mcp server"];

const jsonRpcBody = z.unknown().describe("A JSON-RPC 2.0 message of MCP (or a batch of them), as an MCP client sends it over Streamable HTTP");

const jsonRpcAnswer = z.string().describe(
  "Server-sent events, one JSON-RPC message each: progress notifications of a `tools/call` whose client sent a `progressToken`, then the response. " +
    "A JSON-RPC error the transport answers before any method runs (malformed JSON-RPC, an unsupported protocol version) comes as a JSON body with status 400, " +
    "an `Accept` header without both `application/json` and `text/event-stream` as 406.",
);

/** Whether a JSON-RPC body asks to call a tool: such a POST runs an assistant. */
function callsATool(body: unknown): boolean {
  const isCall = (message: unknown) => typeof message === "object" && message !== null && (message as { method?: unknown }).method === "tools/call" && "id" in message;
  return Array.isArray(body) ? body.some(isCall) : isCall(body);
}

/**
 * `POST /mcp`: the principal's assistants as MCP tools, over Streamable HTTP.
 *
 * Stateless (`sessionIdGenerator: undefined`): every POST gets a server and a transport of its own,
 * built for its principal and gone with the response. Replicas behind a round-robin balancer then
 * serve any request of any client alike: there is no session a replica holds and a peer lacks, and
 * the tool list is read from the store on each request. What sessions would give is given up on
 * purpose: `GET /mcp` opens no stream (405), so there are no `notifications/tools/list_changed` (a
 * client lists again to see new assistants), and a `notifications/cancelled` comes on a POST of its
 * own, to a server that does not hold the call. A client cancels a call by dropping its request
 * (`client.close()`, or closing the connection): the run is aborted then, on whichever replica runs it.
 * (The transport's specification would not read a disconnection as a cancellation, for servers that
 * replay a dropped response from an event store; one here would be per-replica state, so a response
 * whose connection dropped can never be delivered, and its run is work for nobody.)
 */
export const mcpServerRoutes: FastifyPluginAsyncZod<McpServerRoutesOptions> = async (app, { tools, streams, config }) => {
  const open = new Set<StreamableHTTPServerTransport>();
  // A call waits on its run; the server closing ends it as a client leaving would, instead of waiting for it.
  app.addHook("preClose", async () => {
    await Promise.all([...open].map((transport) => transport.close()));
  });
  const rateLimit = runRateLimit(config);
  const limitRuns = rateLimit ? app.rateLimit(rateLimit) : undefined;

  app.post(
    "/mcp",
    {
      // Calls are runs, held to the tenant's run rate; listing tools is not.
      preHandler: async (request, reply) => {
        if (limitRuns && callsATool(request.body)) await limitRuns.call(app, request, reply);
      },
      schema: {
        tags,
        summary: "MCP: the assistants as tools (tools/list, tools/call), over Streamable HTTP",
        description:
          "Each assistant the credential may use is a tool taking `{ message, thread_id? }`; a call is a run on a new thread of the assistant (or the thread named), " +
          "answered once it ended: the answer's text, and `structuredContent` `{ answer, thread_id }`. Stateless: no `Mcp-Session-Id`. " +
          "Listing needs the `read` scope, `tools/call` the `write` scope.",
        body: jsonRpcBody,
        response: {
          200: { description: "The response to the request(s), as server-sent events", content: { "text/event-stream": { schema: jsonRpcAnswer } } },
          202: noContent.describe("Notifications or responses only: accepted, nothing to answer"),
          ...apiErrors(...BODY_CODES, "RATE_LIMITED", "TOO_MANY_STREAMS"),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const calls = callsATool(request.body);
      if (calls && !grants(principal.scope, "write")) throw new HttpError("FORBIDDEN", "tools/call needs the write scope (listing tools needs read)");
      // A call holds its response open while its run lasts: a stream of the tenant's, within its limit.
      const place = calls ? streams.take(principal.tenantId) : undefined;
      const server = serverFor(tools, principal, (error) => errorAnswerOf(error as HttpError, request));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      open.add(transport);
      reply.raw.on("close", () => {
        place?.();
        open.delete(transport);
        // Aborts the handlers still running (extra.signal): their runs are aborted, the client being gone.
        void server.close();
      });
      await server.connect(transport);
      // Headers set so far (replica, CORS, helmet's) are kept: the transport writes the response itself.
      reply.hijack();
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  );

  // Streamable HTTP's GET (a stream for server-initiated messages) and DELETE (ending a session)
  // have nothing to act on without sessions: 405, as the transport's specification allows.
  const refused = { jsonrpc: "2.0" as const, error: { code: ErrorCode.ConnectionClosed, message: "Method not allowed: this MCP server is stateless; POST each request to /mcp" }, id: null };
  const refusal = z.object({ jsonrpc: z.literal("2.0"), error: z.object({ code: z.number(), message: z.string() }), id: z.null() }).describe("Stateless: no stream, no session");
  for (const method of ["GET", "DELETE"] as const) {
    app.route({
      method,
      url: "/mcp",
      schema: { tags, summary: `MCP: ${method === "GET" ? "no server stream" : "no session to end"} (stateless): 405`, response: { 405: refusal, ...apiErrors() } },
      handler: async (_request, reply) => reply.status(405).header("allow", "POST").send(refused),
    });
  }
};

/**
 * The MCP server one request is answered by. The low-level `Server`, not `McpServer`: the tools are
 * the principal's assistants, read from the store per request, not a list registered up front.
 */
function serverFor(tools: AssistantToolServer, principal: Principal, answerOf: (error: unknown) => ErrorAnswer): Server {
  const server = new Server({ name: "axiom-lattice", version: GATEWAY_VERSION }, { capabilities: { tools: {} } });
  // A gateway error (an unknown thread, a full queue) is the request's fault below 500: invalid params;
  // a fault of the server otherwise. Its stable code rides along in `data`, as `/api` answers it.
  const asMcpError = (error: unknown): McpError => {
    if (error instanceof McpError) return error;
    const { status, code, message } = answerOf(error);
    return new McpError(status < 500 ? ErrorCode.InvalidParams : ErrorCode.InternalError, message, { code });
  };
  server.setRequestHandler(ListToolsRequestSchema, async (request) => tools.list(principal, request.params?.cursor).catch((error: unknown) => Promise.reject(asMcpError(error))));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const progressToken = request.params._meta?.progressToken;
    const progress =
      progressToken === undefined
        ? undefined
        : (value: number, message: string) => extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: value, message } });
    return tools.call(principal, request.params.name, request.params.arguments, { signal: extra.signal, progress }).catch((error: unknown) => Promise.reject(asMcpError(error)));
  });
  return server;
}
