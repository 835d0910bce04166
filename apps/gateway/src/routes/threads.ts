import { boundedJson, getThreadRunOwner } from "@axiom-lattice/core";
import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { gatewayContextOf } from "../context/gatewayContext";
import { tenantOf } from "../auth/authentication";
import { parseInput } from "../http/validation";
import { idParams, idSchema } from "./ids";
import { requireAssistant, requireThread, threadScope } from "./lookups";

const metadataSchema = boundedJson(z.record(z.string().max(256), z.unknown()));

const createSchema = z.strictObject({
  thread_id: idSchema.optional(),
  assistant_id: idSchema,
  metadata: metadataSchema.optional(),
});

const listSchema = z.strictObject({
  assistant_id: idSchema.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});

/** Threads CRUD plus what a thread holds: checkpoint state, queue, run records. */
export const threadRoutes: FastifyPluginAsync = async (app) => {
  const context = gatewayContextOf(app);
  const { agents, stores } = context;
  const { threads, queue, lease } = stores;

  app.post("/api/threads", async (request, reply) => {
    const tenantId = tenantOf(request);
    const body = parseInput(createSchema, request.body);
    await requireAssistant(context, tenantId, body.assistant_id);
    const thread = await threads.createThread(tenantId, { id: body.thread_id, assistantId: body.assistant_id, metadata: body.metadata });
    return reply.status(201).send(thread);
  });

  app.get("/api/threads", async (request) => {
    const query = parseInput(listSchema, request.query, "query");
    const list = await threads.listThreads(tenantOf(request), {
      assistantId: query.assistant_id,
      limit: query.limit,
      offset: query.offset,
    });
    return { threads: list };
  });

  app.get("/api/threads/:id", async (request) => {
    const { id } = parseInput(idParams, request.params, "path");
    return requireThread(context, tenantOf(request), id);
  });

  app.delete("/api/threads/:id", async (request, reply) => {
    const { id } = parseInput(idParams, request.params, "path");
    const thread = await requireThread(context, tenantOf(request), id);
    // Under the thread's run lease: a thread with a run in progress answers 409 THREAD_BUSY.
    await agents.deleteThread(threadScope(thread));
    return reply.status(204).send();
  });

  app.get("/api/threads/:id/state", async (request) => {
    const { id } = parseInput(idParams, request.params, "path");
    const thread = await requireThread(context, tenantOf(request), id);
    return agents.getAgent(threadScope(thread)).getState();
  });

  app.get("/api/threads/:id/queue", async (request) => {
    const { id } = parseInput(idParams, request.params, "path");
    const thread = await requireThread(context, tenantOf(request), id);
    const scope = { tenantId: thread.tenantId, assistantId: thread.assistantId };
    const [processing, pending, owner] = await Promise.all([
      queue.getProcessingMessages(id, scope),
      queue.getPendingMessages(id, scope),
      getThreadRunOwner(threadScope(thread), { store: lease }),
    ]);
    // `owner`: the replica running the thread now (null when none), for clients that route by affinity.
    return { processing, pending, size: processing.length + pending.length, owner };
  });

  app.get("/api/threads/:id/runs", async (request) => {
    const { id } = parseInput(idParams, request.params, "path");
    const thread = await requireThread(context, tenantOf(request), id);
    const runs = await queue.listRuns(id, { tenantId: thread.tenantId, assistantId: thread.assistantId });
    return {
      runs: runs.map((run) => ({
        messageId: run.id,
        status: run.runStatus,
        replicaId: run.replicaId ?? null,
        startedAt: run.startedAt ?? null,
        finishedAt: run.finishedAt ?? null,
        error: run.error ?? null,
      })),
    };
  });
};
