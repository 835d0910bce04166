import type { AgentInstanceManager } from "@axiom-lattice/agent";
import { boundedJson, getThreadRunOwner } from "@axiom-lattice/core";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { ErrorCode } from "@axiom-lattice/protocols";
import { z } from "zod";
import { principalOf, tenantOf } from "../auth/authentication";
import { BODY_CODES, INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { idParams, idSchema, noContent } from "../http/ids";
import { pageBody, pageQuery, pageView } from "../http/pageWire";
import type { GatewayStores } from "../stores/gatewayStores";
import { requireAssistant, requireThread, threadAssistantOf, threadScope, usableOnly } from "../shared/lookups";
import { THREAD_RUNS_DESCRIPTION, threadRunsPage } from "./threadRuns";
import { interruptView, messageView, queuedMessageView, runRecordView, threadView, toMessageView, toQueuedMessageView, toRunRecordView, toThreadView } from "./threadViews";

export interface ThreadRoutesOptions {
  stores: Pick<GatewayStores, "assistants" | "threads" | "queue" | "lease">;
  agents: AgentInstanceManager;
}

const metadataSchema = boundedJson(z.record(z.string().max(256), z.unknown()));

const createSchema = z.strictObject({
  thread_id: idSchema.optional().describe("Chosen by the client, unique within the tenant; generated when absent"),
  assistant_id: idSchema,
  metadata: metadataSchema.optional(),
});

const listSchema = z.strictObject({
  assistant_id: idSchema.optional().describe("Only this assistant's threads"),
  ...pageQuery,
});

const stateView = z.object({
  messages: z.array(messageView),
  next: z.array(z.string()).describe("Graph nodes due next: non-empty while a run is unfinished or interrupted"),
  interrupts: z.array(interruptView),
});

const queueView = z.object({
  processing: z.array(queuedMessageView),
  pending: z.array(queuedMessageView),
  size: z.number().int(),
  owner: z.string().nullable().describe("The replica running the thread now, for clients that route by affinity"),
});

const tags = ["threads"];
const threadErrors = apiErrors(...INPUT_CODES, "NOT_FOUND");
const listErrors = (...codes: ErrorCode[]) => apiErrors(...INPUT_CODES, "INVALID_CURSOR", ...codes);

/** Threads CRUD plus what a thread holds: checkpoint state, queue, run records. */
export const threadRoutes: FastifyPluginAsyncZod<ThreadRoutesOptions> = async (app, options) => {
  const { agents, stores } = options;
  const { threads, queue, lease } = stores;

  app.post(
    "/api/threads",
    {
      schema: {
        tags,
        summary: "Create a thread of an assistant",
        body: createSchema,
        response: { 201: threadView, ...apiErrors(...BODY_CODES, "NOT_FOUND", "ALREADY_EXISTS") },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { body } = request;
      await requireAssistant(options, principalOf(request), body.assistant_id);
      const thread = await threads.createThread(tenantId, { id: body.thread_id, assistantId: body.assistant_id, metadata: body.metadata });
      return reply.status(201).send(toThreadView(thread));
    },
  );

  app.get(
    "/api/threads",
    {
      schema: {
        tags,
        summary: "List the tenant's threads, newest first, a page at a time",
        querystring: listSchema,
        response: { 200: pageView("threads", threadView), ...listErrors() },
      },
    },
    async (request) => {
      const { assistant_id, limit, cursor } = request.query;
      const principal = principalOf(request);
      const page = await threads.listThreads(principal.tenantId, { limit, cursor }, { assistantId: assistant_id });
      // A restricted key's page holds only its assistants' threads: it may be short, the cursor still walks every page.
      return pageBody("threads", { ...page, items: usableOnly(principal, page.items, threadAssistantOf) }, toThreadView);
    },
  );

  app.get(
    "/api/threads/:id",
    { schema: { tags, summary: "Read a thread", params: idParams, response: { 200: threadView, ...threadErrors } } },
    async (request) => toThreadView(await requireThread(options, principalOf(request), request.params.id)),
  );

  app.delete(
    "/api/threads/:id",
    {
      schema: {
        tags,
        summary: "Delete a thread with its conversation, queued messages and run history",
        description: "Answers `409 THREAD_BUSY` while a run of the thread is in progress: abort it first.",
        params: idParams,
        response: { 204: noContent, ...apiErrors(...INPUT_CODES, "NOT_FOUND", "THREAD_BUSY") },
      },
    },
    async (request, reply) => {
      const thread = await requireThread(options, principalOf(request), request.params.id);
      // Under the thread's run lease: a thread with a run in progress answers 409 THREAD_BUSY.
      await agents.deleteThread(threadScope(thread));
      return reply.status(204).send();
    },
  );

  app.get(
    "/api/threads/:id/state",
    {
      schema: {
        tags,
        summary: "The thread's conversation (its checkpointed state)",
        params: idParams,
        // UNKNOWN_*: the assistant, stored before references were checked, names what is not registered.
        response: { 200: stateView, ...apiErrors(...INPUT_CODES, "NOT_FOUND") },
      },
    },
    async (request) => {
      const thread = await requireThread(options, principalOf(request), request.params.id);
      const { messages, next, interrupts } = await agents.getAgent(threadScope(thread)).getState();
      return { messages: messages.map(toMessageView), next, interrupts };
    },
  );

  app.get(
    "/api/threads/:id/queue",
    { schema: { tags, summary: "What is queued on the thread, and which replica runs it", params: idParams, response: { 200: queueView, ...threadErrors } } },
    async (request) => {
      const { id } = request.params;
      const thread = await requireThread(options, principalOf(request), id);
      const scope = threadScope(thread);
      const [processing, pending, owner] = await Promise.all([
        queue.getProcessingMessages(scope),
        queue.getPendingMessages(scope),
        getThreadRunOwner(scope, { store: lease }),
      ]);
      return { processing: processing.map(toQueuedMessageView), pending: pending.map(toQueuedMessageView), size: processing.length + pending.length, owner };
    },
  );

  app.get(
    "/api/threads/:id/runs",
    {
      schema: {
        tags,
        summary: "The thread's runs, oldest first, then the one in progress",
        description: THREAD_RUNS_DESCRIPTION,
        params: idParams,
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("runs", runRecordView), ...listErrors("NOT_FOUND") },
      },
    },
    async (request) => {
      const { id } = request.params;
      const thread = await requireThread(options, principalOf(request), id);
      const runs = await threadRunsPage(queue, threadScope(thread), request.query);
      return pageBody("runs", runs, toRunRecordView);
    },
  );
};
