import { JsonRpcTransportHandler, ServerCallContext } from "@a2a-js/sdk/server";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { principalOf } from "../auth/authentication";
import { type Principal, grants } from "../auth/principal";
import type { GatewayConfig } from "../config";
import { HttpError } from "../http/errors";
import { idSchema } from "../http/ids";
import { type SseStream, gatewaySseOptions, openSseStream } from "../http/sse";
import type { TenantStreams } from "../http/tenantStreams";
import type { GatewayMetrics } from "../metrics/gatewayMetrics";
import { apiErrors } from "../openapi/errorResponses";
import { requireAssistant } from "../shared/lookups";
import { runRateLimit } from "../shared/runRateLimit";
import type { GatewayStores } from "../stores/gatewayStores";
import { agentCardOf, publicBaseUrl, v03CardJson, v1CardJson } from "./agentCard";
import { type A2aEngine, assistantTasks } from "./assistantTasks";
import { LoadRefusals } from "./loadRefusals";
import { VERSION_NOT_SUPPORTED, alwaysStreams, jsonRpcError, readCall, scopeOfMethod, startsRun, streamsAnswer, versionOf } from "./jsonRpcEnvelope";

export interface A2aRoutesOptions extends A2aEngine {
  stores: A2aEngine["stores"] & Pick<GatewayStores, "assistants">;
  config: A2aEngine["config"] & Pick<GatewayConfig, "publicUrl" | "sseHeartbeatMs" | "runRateLimitPerMinute">;
  streams: TenantStreams;
  metrics: Pick<GatewayMetrics, "sseSubscribers">;
}

/** The largest JSON-RPC call taken: a message's text at most, with room for its envelope. */
export const A2A_BODY_LIMIT_BYTES = 512 * 1024;

const tags = ["a2a"];
const A2A_VERSION_HEADER = "a2a-version";

const assistantParams = z.object({ assistant_id: idSchema });
const versionHeader = z.looseObject({
  [A2A_VERSION_HEADER]: z.string().max(16).optional().describe("`1.0` for A2A 1.0 (its method names and JSON); absent or `0.3` for A2A 0.3"),
});

const cardSchema = z.record(z.string(), z.unknown()).describe("The assistant's agent card: A2A 1.0's form when asked with `A2A-Version: 1.0`, A2A 0.3's otherwise");
const rpcAnswer = z
  .object({
    jsonrpc: z.string(),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.unknown().optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .describe("The call's JSON-RPC answer: its result, or an error with A2A's codes (-32001 task not found, -32002 not cancelable, -32003 push notifications not supported, -32004 unsupported operation, -32602 invalid params, -32601 method not found, -32700 parse error, -32600 invalid request)");
const rpcStream = z.string().describe("Server-sent events, `data:` one JSON-RPC answer each: the task, then its status and artifact updates, until its end");

const cardResponses = { 200: cardSchema, ...apiErrors("INVALID_REQUEST", "NOT_FOUND") };

/**
 * A2A at `/a2a/{assistant_id}`: each assistant of the tenant is an agent, with its card and one
 * JSON-RPC endpoint speaking A2A 1.0 and 0.3. The SDK's handlers read and write the protocol;
 * `assistantTasks` maps it onto the gateway's runs.
 *
 * Cards need a credential as every tenant route does: a card names a tenant's assistant, its purpose
 * and tools, and the tenant is known only from the credential.
 */
export const a2aRoutes: FastifyPluginAsyncZod<A2aRoutesOptions> = async (app, options) => {
  const { config, streams } = options;
  // Sending a message starts a run: held to the tenants' run rate as every other way of starting one. Other calls go free.
  const limit = runRateLimit(config);
  const rateLimit = limit && { ...limit, allowList: (request: FastifyRequest) => !startsRun(request.body) };

  // The call is read here, not by Fastify, so a body that is not JSON gets JSON-RPC's parse error.
  app.addContentTypeParser(["application/json", "application/a2a+json"], { parseAs: "string", bodyLimit: A2A_BODY_LIMIT_BYTES }, (_request, body, done) => done(null, body));

  // A task's stream lasts as long as the task: closing the server ends them, and clients subscribe again elsewhere.
  const open = new Set<SseStream>();
  app.addHook("preClose", async () => {
    for (const sse of open) sse.end();
  });

  /** The assistant a request names, if the credential may use it: another tenant's, and those a restricted credential is kept from, are missing. */
  const usableAssistant = (principal: Principal, assistantId: string) => requireAssistant(options, principal, assistantId);

  const serveCard = async (request: FastifyRequest, reply: FastifyReply, assistantId: string) => {
    const assistant = await usableAssistant(principalOf(request), assistantId);
    const card = agentCardOf(assistant, publicBaseUrl(request, config.publicUrl));
    const version = request.headers[A2A_VERSION_HEADER];
    reply.header("vary", "A2A-Version");
    return typeof version === "string" && version.startsWith("1.") ? v1CardJson(card) : v03CardJson(card);
  };

  app.get(
    "/.well-known/agent-card.json",
    {
      schema: {
        tags,
        summary: "An assistant's A2A agent card, named in the query",
        querystring: z.object({ assistant_id: idSchema }),
        headers: versionHeader,
        response: cardResponses,
      },
    },
    (request, reply) => serveCard(request, reply, request.query.assistant_id),
  );

  app.get(
    "/a2a/:assistant_id/.well-known/agent-card.json",
    { schema: { tags, summary: "An assistant's A2A agent card", params: assistantParams, headers: versionHeader, response: cardResponses } },
    (request, reply) => serveCard(request, reply, request.params.assistant_id),
  );

  app.post(
    "/a2a/:assistant_id",
    {
      bodyLimit: A2A_BODY_LIMIT_BYTES,
      config: { rateLimit },
      // One route serves every method: each method's scope is checked here, before the rate limit counts the call.
      preValidation: async (request) => {
        const call = readCall(typeof request.body === "string" ? request.body : "");
        const needed = "error" in call ? "read" : scopeOfMethod(call.method);
        if (!grants(principalOf(request).scope, needed)) throw new HttpError("FORBIDDEN", `${"error" in call ? "This call" : call.method} needs the ${needed} scope`);
      },
      schema: {
        tags,
        summary: "Call the assistant as an A2A agent (JSON-RPC 2.0)",
        description:
          "A2A 1.0 methods (`SendMessage`, `SendStreamingMessage`, `GetTask`, `ListTasks`, `CancelTask`, `SubscribeToTask`) with `A2A-Version: 1.0`, and A2A 0.3's " +
          "(`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe`). A context is a thread of the assistant, a task a run of it: " +
          "an interrupt makes the task `input-required`, and the next message naming the task answers it; the answer is the task's artifact. " +
          "Push-notification configurations (`Create`/`Get`/`List`/`DeleteTaskPushNotificationConfig`, 0.3's `tasks/pushNotificationConfig/*`) name where the task is POSTed once it stops; " +
          "their URLs are held to the egress policy. Reads need the `read` scope, sending, cancelling and setting configurations `write`. One call per request: batches are refused. " +
          "A call refused for the tenant's limits (429 `QUEUE_FULL`, `TOO_MANY_SUBMISSIONS`, `RATE_LIMITED`, `TOO_MANY_STREAMS`; nothing of it queued) or because the database is down (503 `DATABASE_UNAVAILABLE`) is answered in HTTP with `Retry-After`, not as a JSON-RPC error.",
        params: assistantParams,
        headers: versionHeader,
        response: {
          200: { description: "The call's answer, or its stream", content: { "application/json": { schema: rpcAnswer }, "text/event-stream": { schema: rpcStream } } },
          ...apiErrors("INVALID_REQUEST", "NOT_FOUND", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "TOO_MANY_STREAMS", "RATE_LIMITED", "QUEUE_FULL", "TOO_MANY_SUBMISSIONS"),
        },
      },
    },
    async (request, reply) => {
      // Every answer is JSON-RPC's, serialized as the SDK built it (its types are the protocol's, not this route's schema).
      const sendJson = (body: unknown) => reply.type("application/json; charset=utf-8").send(JSON.stringify(body));
      const principal = principalOf(request);
      const assistant = await usableAssistant(principal, request.params.assistant_id);
      const call = readCall(typeof request.body === "string" ? request.body : "");
      if ("error" in call) return sendJson(call);
      const version = versionOf(request.headers[A2A_VERSION_HEADER] as string | undefined, call.method);
      if (version === undefined) return sendJson(jsonRpcError(call.id, VERSION_NOT_SUPPORTED, `A2A-Version ${String(request.headers[A2A_VERSION_HEADER])} is not supported: use 1.0 or 0.3`));

      const card = agentCardOf(assistant, publicBaseUrl(request, config.publicUrl));
      const refusals = new LoadRefusals();
      const tasks = refusals.watch(assistantTasks(options, principal.tenantId, assistant, card, version));
      const handler = version === "1.0" ? new JsonRpcTransportHandler(tasks) : new LegacyJsonRpcTransportHandler(tasks);
      const mapError = version === "1.0" ? JsonRpcTransportHandler.mapToJSONRPCError : LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError;
      // Taken before the call runs: a refused stream starts nothing.
      const place = streamsAnswer(call.method) ? streams.take(principal.tenantId) : undefined;
      const answer = await handler.handle(call as unknown as Record<string, unknown>, new ServerCallContext({ requestedVersion: version })).catch((error: unknown) => {
        place?.();
        throw error;
      });
      if (!(Symbol.asyncIterator in answer)) {
        place?.();
        refusals.throwIfRefused();
        return sendJson(answer);
      }
      const events = answer[Symbol.asyncIterator]();
      const failed = (error: unknown) => ({ jsonrpc: "2.0" as const, id: call.id ?? null, error: mapError(error) });
      let first: IteratorResult<unknown> | undefined;
      if (!alwaysStreams(version, call.method)) {
        // A call refused at once (no such task, bad params) is answered as JSON, as the SDK's clients expect.
        try {
          first = await events.next();
        } catch (error) {
          place?.();
          refusals.throwIfRefused();
          return sendJson(failed(error));
        }
        try {
          refusals.throwIfRefused();
        } catch (refusal) {
          place?.();
          await events.return?.(undefined);
          throw refusal;
        }
      }
      const sse = openSseStream(reply, gatewaySseOptions({ config, metrics: options.metrics }, place));
      open.add(sse);
      try {
        if (first && !first.done) sse.send(undefined, first.value);
        for (let next = await events.next(); !next.done; next = await events.next()) {
          if (!sse.send(undefined, next.value)) return;
          await sse.drained();
        }
      } catch (error) {
        if (!sse.closed) sse.send(undefined, failed(error));
      } finally {
        open.delete(sse);
        sse.end();
        // A client that left stops the following (the task runs on), and what it holds.
        await events.return?.(undefined);
      }
    },
  );
};
