import type { StreamChunk } from "@axiom-lattice/agent";
import { type ThreadRunScope, boundedJson, getThreadRunOwner } from "@axiom-lattice/core";
import { AFFINITY_MISS_CODE, buildAffinityMissChunk } from "@axiom-lattice/protocols";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { gatewayContextOf } from "../context/gatewayContext";
import { HttpError } from "../http/errors";
import { openSseStream } from "../http/sse";
import { tenantOf } from "../auth/authentication";
import { parseInput } from "../http/validation";
import { idSchema } from "./ids";
import { requireAssistant, requireThread, threadScope } from "./lookups";

const threadRef = { assistant_id: idSchema, thread_id: idSchema };

const runSchema = z
  .strictObject({
    ...threadRef,
    message: z.string().min(1).max(100_000).optional(),
    message_id: idSchema.optional(),
    mode: z.enum(["stream", "queue", "wait"]).default("stream"),
    command: z.strictObject({ resume: boundedJson(z.unknown()) }).optional(),
    multitask_strategy: z.enum(["enqueue", "reject", "interrupt"]).default("enqueue"),
  })
  .refine((body) => body.message !== undefined || body.command !== undefined, {
    message: "a message or a command is required",
    path: ["message"],
  });

const resumeStreamSchema = z.strictObject({
  ...threadRef,
  message_id: idSchema,
  after: z.number().int().min(-1).max(Number.MAX_SAFE_INTEGER).optional(),
});

const threadOnlySchema = z.strictObject(threadRef);

/** `POST /api/runs` and its companions: resume_stream, abort, recover. */
export const runRoutes: FastifyPluginAsync = async (app) => {
  const context = gatewayContextOf(app);
  const { agents, stores, config, replicaId } = context;

  /** The peer replica running this thread, when affinity is on and it is not us. */
  const peerOwner = async (scope: ThreadRunScope): Promise<string | null> => {
    if (!config.replicaAffinity) return null;
    const owner = await getThreadRunOwner(scope, { store: stores.lease });
    return owner && owner !== replicaId ? owner : null;
  };

  const resolveScope = async (tenantId: string, body: { assistant_id: string; thread_id: string }) => {
    await requireAssistant(context, tenantId, body.assistant_id);
    return threadScope(await requireThread(context, tenantId, body.thread_id, body.assistant_id));
  };

  const streamChunks = async (reply: FastifyReply, chunks: AsyncIterable<StreamChunk>) => {
    const sse = openSseStream(reply, { subscribers: context.metrics.sseSubscribers });
    try {
      for await (const chunk of chunks) {
        // A client that left does not cancel the run: it is queued work, resumable with resume_stream.
        if (!sse.send(`${chunk.messageId}:${chunk.index}`, { type: chunk.type, data: chunk.data })) break;
      }
    } finally {
      sse.end();
    }
  };

  const streamAffinityMiss = (reply: FastifyReply, owner: string, threadId: string) => {
    context.metrics.affinityMisses.inc();
    const sse = openSseStream(reply, { subscribers: context.metrics.sseSubscribers });
    sse.send(undefined, buildAffinityMissChunk(owner, threadId));
    sse.end();
  };

  // Each tenant may create so many runs a minute on this replica (AXIOM_RUN_RATE_LIMIT_PER_MINUTE).
  const rateLimit = config.runRateLimitPerMinute > 0 ? { max: config.runRateLimitPerMinute, timeWindow: 60_000, keyGenerator: tenantOf } : false;
  app.post("/api/runs", { config: { rateLimit } }, async (request, reply) => {
    const tenantId = tenantOf(request);
    const body = parseInput(runSchema, request.body);
    const scope = await resolveScope(tenantId, body);
    const result = await agents.getAgent(scope).addMessage(
      { message: body.message },
      { mode: body.mode, messageId: body.message_id, command: body.command, multitaskStrategy: body.multitask_strategy },
    );

    if (body.mode === "queue") return reply.status(202).send({ messageId: result.messageId, queued: true });
    if (body.mode === "wait") return reply.send(await result.completion);

    // The message is queued either way; when a peer runs the thread, it processes it.
    if (await peerOwner(scope)) {
      await sleep(config.affinityGraceMs);
      const owner = await peerOwner(scope);
      if (owner) return streamAffinityMiss(reply, owner, scope.threadId);
    }
    return streamChunks(reply, result.stream!);
  });

  app.post("/api/runs/resume_stream", async (request, reply) => {
    const tenantId = tenantOf(request);
    const body = parseInput(resumeStreamSchema, request.body);
    const scope = await resolveScope(tenantId, body);
    const message = await stores.queue.getMessage(body.message_id, { tenantId, assistantId: scope.assistantId });
    if (!message || message.threadId !== scope.threadId) {
      throw new HttpError("NOT_FOUND", `Message ${body.message_id} not found on thread ${scope.threadId}`);
    }
    const owner = await peerOwner(scope);
    if (owner) return streamAffinityMiss(reply, owner, scope.threadId);
    return streamChunks(reply, agents.getAgent(scope).chunkStream(body.message_id, body.after ?? -1));
  });

  app.post("/api/runs/abort", async (request) => {
    const tenantId = tenantOf(request);
    const scope = await resolveScope(tenantId, parseInput(threadOnlySchema, request.body));
    const owner = await peerOwner(scope);
    if (owner) {
      context.metrics.affinityMisses.inc();
      throw new HttpError("AFFINITY_MISS", `Replica ${owner} runs thread ${scope.threadId}`, { owner, threadId: scope.threadId });
    }
    return { success: true, aborted: await agents.getAgent(scope).abort() };
  });

  app.post("/api/runs/recover", async (request) => {
    const tenantId = tenantOf(request);
    const scope = await resolveScope(tenantId, parseInput(threadOnlySchema, request.body));
    const { status, leaseContended } = await agents.getAgent(scope).resumeTask();
    return leaseContended ? { status, code: AFFINITY_MISS_CODE } : { status };
  });
};
