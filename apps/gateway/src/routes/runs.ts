import type { AgentInstanceManager, RunAffinity } from "@axiom-lattice/agent";
import { QueueFullError, boundedJson, queueScopeOf } from "@axiom-lattice/core";
import { AFFINITY_MISS_CODE, type ErrorCode } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { principalOf, tenantOf } from "../auth/authentication";
import type { GatewayConfig } from "../config";
import { HttpError } from "../http/errors";
import type { TenantStreams } from "../http/tenantStreams";
import type { TenantSubmissions } from "../http/tenantSubmissions";
import type { GatewayMetrics } from "../metrics/gatewayMetrics";
import { BODY_CODES, apiErrors } from "../openapi/errorResponses";
import { idSchema } from "../http/ids";
import type { GatewayStores } from "../stores/gatewayStores";
import { type Requester, requireRunTarget, runTargetScope, threadScope } from "../shared/lookups";
import { runRateLimit } from "../shared/runRateLimit";
import { runStreams } from "../shared/runStreams";
import { resumePoint } from "../shared/streamEventIds";
import { finishedRunStatus, runResultView, toRunResultView } from "./threadViews";

const threadRef = { assistant_id: idSchema, thread_id: idSchema };

const runSchema = z
  .strictObject({
    ...threadRef,
    message: z.string().min(1).max(100_000).optional(),
    message_id: idSchema.optional().describe("Chosen by the client, unique within the tenant; generated when absent"),
    mode: z.enum(["stream", "queue", "wait"]).default("stream").describe("stream: SSE chunks; queue: 202 at once; wait: the run's outcome"),
    command: z.strictObject({ resume: boundedJson(z.unknown()) }).optional().describe("Resumes an interrupted run instead of a message"),
    multitask_strategy: z.enum(["enqueue", "reject", "interrupt"]).default("enqueue").describe("When the thread is busy: queue behind, refuse (409), or abort the run in progress"),
  })
  .refine((body) => body.message !== undefined || body.command !== undefined, {
    message: "a message or a command is required",
    path: ["message"],
  });

const resumeStreamSchema = z.strictObject({
  ...threadRef,
  message_id: idSchema.optional().describe("The message to follow; may be left to a Last-Event-ID header"),
  after: z.number().int().min(-1).max(Number.MAX_SAFE_INTEGER).optional().describe("Replay the chunks after this index (default -1: all)"),
});

const resumeStreamHeaders = z.looseObject({
  "last-event-id": z.string().max(512).optional().describe("The id of the last event received, `<message_id>:<index>`: the stream resumes after it"),
});

const threadOnlySchema = z.strictObject(threadRef);

const abortSchema = z.strictObject({
  ...threadRef,
  message_id: idSchema.optional().describe("Abort this message's run only (running: it is stopped; pending: it never runs). Default: the thread's run in progress"),
});

const abortOutcome = z.object({
  success: z.literal(true),
  aborted: z.boolean().describe("true: the run ended aborted (stopped, or never started); false: no run was in progress, or it ended otherwise first"),
  message_id: z.string().optional().describe("The run the abort was for; absent when no run was in progress"),
  status: finishedRunStatus.optional().describe("How that run ended: `aborted`, or how it ended before the abort reached it"),
});

const abortRequested = z
  .object({ success: z.literal(true), aborted: z.literal(false), requested: z.literal(true), message_id: z.string() })
  .describe("The run did not end within the wait (its replica is gone, or has not stopped it yet): the request is recorded on its message, and whichever replica holds or takes over the run applies it");

const sseStream = z.string().describe(
  "Server-sent events `id: <message_id>:<index>` / `data: {\"type\", \"data\"}`, ending with `message_completed`, `message_failed` (`data.code`: the failure's stable code, when it has one, such as `UPSTREAM_TIMEOUT`), `interrupt` or `error` (`MESSAGE_NOT_FOUND`). " +
    "When the replica running the message stops before it ends, `run_handed_over` (`data`: `code` such as `LEASE_LOST` or `REPLICA_SHUTDOWN`, `reason`, `replica`) says so, and the stream goes on with the attempt that takes the run over: `run_resumed` (`data`: `replica`, `attempt`), " +
    "whose id jumps past every id the earlier attempt may have sent; the text streamed since the earlier attempt's last completed step is streamed again. " +
    "A replica that dies sends nothing: its clients resume elsewhere with `Last-Event-ID` and meet `run_resumed`. A replica shutting down closes its streams (after its `run_handed_over` when it ran the message); resume elsewhere. Ids increase, none names two events. " +
    "Or, with `AXIOM_STREAM_RELAY=off` on a replica that does not run the thread, a single `affinity_miss` event naming the replica that runs the thread (`owner`), the thread (`thread_id`) and the message (`message_id`).",
);

const tags = ["runs"];
const runErrors = (...codes: ErrorCode[]) => apiErrors(...BODY_CODES, "NOT_FOUND", ...codes);

export interface RunRoutesOptions {
  stores: Pick<GatewayStores, "runTargets" | "queue">;
  agents: AgentInstanceManager;
  /** Which replica serves a run's stream: strict affinity (`AXIOM_STREAM_RELAY=off`) sends its client to the peer running the thread. */
  affinity: RunAffinity;
  streams: TenantStreams;
  submissions: TenantSubmissions;
  config: Pick<GatewayConfig, "tenantLimits" | "runRateLimitPerMinute" | "sseHeartbeatMs">;
  metrics: Pick<GatewayMetrics, "affinityMisses" | "tenantRefusals" | "sseSubscribers">;
}

/** `POST /api/runs` and its companions: resume_stream, abort, recover. */
export const runRoutes: FastifyPluginAsyncZod<RunRoutesOptions> = async (app, options) => {
  const { agents, affinity, streams, submissions, metrics, stores, config } = options;
  const { maxQueuedMessages } = config.tenantLimits;

  const resolveScope = async (who: Requester, body: { assistant_id: string; thread_id: string }) =>
    threadScope(await requireRunTarget(options, who, body.assistant_id, body.thread_id));

  const { streamChunks, streamAffinityMiss } = runStreams(app, options);

  const rateLimit = runRateLimit(config);
  app.post(
    "/api/runs",
    {
      config: { rateLimit },
      schema: {
        tags,
        summary: "Send a message (or a resume command) to a thread and follow its run",
        description:
          "`stream` answers server-sent events; `queue` answers 202 at once; `wait` answers 200 once the run ended, with its `status` " +
          "(a failed run is still a 200: the message was accepted and ran, and the body says how it ended) and the messages this run added.",
        body: runSchema,
        response: {
          200: {
            description: "stream: the run's events; wait: how the run ended",
            content: { "text/event-stream": { schema: sseStream }, "application/json": { schema: runResultView } },
          },
          202: z.object({ message_id: z.string(), queued: z.literal(true) }),
          ...runErrors("DUPLICATE_MESSAGE", "THREAD_BUSY", "QUEUE_FULL", "RATE_LIMITED", "TOO_MANY_STREAMS", "TOO_MANY_SUBMISSIONS", "INVALID_RUN_INPUT"),
        },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const tenantId = tenantOf(request);
      const { scope, place, result } = await submissions.submit(tenantId, async () => {
        // Its assistant and thread are judged by the add (requireTarget), not read before it: one round trip less per run.
        const scope = runTargetScope(principalOf(request), body.assistant_id, body.thread_id);
        // A stream's place is taken before its message is queued: a refused stream queues nothing.
        const place = body.mode === "stream" ? streams.take(tenantId) : undefined;
        try {
          const result = await agents.getAgent(scope).addMessage(
            { message: body.message },
            {
              mode: body.mode,
              messageId: body.message_id,
              command: body.command,
              multitaskStrategy: body.multitask_strategy,
              tenantQueueLimit: maxQueuedMessages > 0 ? maxQueuedMessages : undefined,
              requireTarget: true,
            },
          );
          return { scope, place, result };
        } catch (error) {
          if (error instanceof QueueFullError && error.bound === "tenant") metrics.tenantRefusals.inc({ tenant: tenantId, reason: "queue_full" });
          place?.();
          throw error;
        }
      });
      try {
        if (body.mode === "queue") return reply.status(202).send({ message_id: result.messageId, queued: true });
        if (body.mode === "wait") return reply.send(toRunResultView(await result.completion!));

        // The message is queued either way; when a peer runs the thread, it processes it.
        const owner = await affinity.peerOwnerAfterGrace(scope);
        if (owner) return streamAffinityMiss(reply, owner, scope, result.messageId, place!);
        return await streamChunks(reply, result.stream!, place!);
      } catch (error) {
        // Given back at once when no stream opened (the stream's end gives it back otherwise; twice is harmless).
        place?.();
        throw error;
      }
    },
  );

  app.post(
    "/api/runs/resume_stream",
    {
      schema: {
        tags,
        summary: "Follow a message's run again: replay its chunks after a position, then live ones",
        description:
          "The position is `message_id` and `after` in the body, or the standard `Last-Event-ID` header (`<message_id>:<index>`, as the stream sent it). " +
          "With both, the header must name the same message, and the stream resumes after the later of the two positions.",
        body: resumeStreamSchema,
        headers: resumeStreamHeaders,
        response: { 200: { description: "The run's events", content: { "text/event-stream": { schema: sseStream } } }, ...runErrors("TOO_MANY_STREAMS") },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { messageId, index: after } = resumePoint(request.body, request.headers["last-event-id"]);
      const scope = await resolveScope(principalOf(request), request.body);
      const message = await stores.queue.getMessage(messageId, queueScopeOf(scope));
      if (!message || message.threadId !== scope.threadId) {
        throw new HttpError("NOT_FOUND", `Message ${messageId} not found on thread ${scope.threadId}`);
      }
      const owner = await affinity.peerOwner(scope);
      // Opened at once, without an await in between: the stream's close gives its place back.
      const place = streams.take(tenantId);
      if (owner) return streamAffinityMiss(reply, owner, scope, messageId, place);
      return streamChunks(reply, agents.getAgent(scope).chunkStream(messageId, after), place);
    },
  );

  app.post(
    "/api/runs/abort",
    {
      schema: {
        tags,
        summary: "Abort the thread's run in progress, or one message's run, on whichever replica runs it",
        description:
          "Any replica takes it: the request is recorded on the run's message and the replica running it stops it (told at once; a lost notice is " +
          "found at its next claim renewal; a replica taking the thread over from a dead one applies it without running the message). " +
          "The answer waits for the run to end, at most half of `AXIOM_RUN_LEASE_MS`: 200 with `aborted: true` once it ended aborted, " +
          "`aborted: false` with its `status` when it ended otherwise first, or `aborted: false` alone when no run was in progress; 202 when it did not end within the wait.",
        body: abortSchema,
        response: { 200: abortOutcome, 202: abortRequested, ...runErrors() },
      },
    },
    async (request, reply) => {
      const scope = await resolveScope(principalOf(request), request.body);
      const named = request.body.message_id;
      const { messageId, status } = await agents.getAgent(scope).abort(named);
      if (messageId === undefined) {
        if (named !== undefined) throw new HttpError("NOT_FOUND", `Message ${named} not found on thread ${scope.threadId}`);
        return { success: true as const, aborted: false };
      }
      if (status === undefined) return reply.status(202).send({ success: true as const, aborted: false as const, requested: true as const, message_id: messageId });
      return { success: true as const, aborted: status === "aborted", message_id: messageId, status };
    },
  );

  app.post(
    "/api/runs/recover",
    {
      schema: {
        tags,
        summary: "Process what is queued on the thread now, taking back claims of replicas that died",
        body: threadOnlySchema,
        response: {
          200: z.object({
            status: z.enum(["idle", "busy", "interrupted"]),
            code: z.literal(AFFINITY_MISS_CODE).optional().describe("A peer runs the thread: the work is deferred to it"),
          }),
          ...runErrors(),
        },
      },
    },
    async (request) => {
      const scope = await resolveScope(principalOf(request), request.body);
      const { status, leaseContended } = await agents.getAgent(scope).resumeTask();
      return leaseContended ? { status, code: AFFINITY_MISS_CODE as typeof AFFINITY_MISS_CODE } : { status };
    },
  );
};
