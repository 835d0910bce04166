import { queueScopeOf } from "@axiom-lattice/core";
import { ANY_ASSISTANT, type PendingMessage, type Thread } from "@axiom-lattice/protocols";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { principalOf, tenantOf } from "../auth/authentication";
import type { Principal } from "../auth/principal";
import type { LanggraphServices } from "./langgraphServices";
import { HttpError } from "../http/errors";
import { gatewaySseOptions } from "../http/sse";
import { idSchema, noContent } from "../http/ids";
import { mayUseThread, requireThread, threadScope } from "../shared/lookups";
import { bodyErrors, inputErrors } from "./errors";
import { locateRun } from "./runHeaders";
import { runOutcomeValues } from "./runOutcome";
import { runRateLimit } from "../shared/runRateLimit";
import { RUN_CREATE_ERRORS, planRun, runCreateSchema } from "./runRequest";
import { type RunStarterServices, langgraphRunStarter } from "./runStarter";
import { cancelRun, resumeIndexOf, streamRun } from "./runStream";
import { RUN_STATUSES, type RunView, runView, streamModesOfRun, toRunView } from "./runView";

const threadParams = z.object({ thread_id: idSchema });
const runParams = z.object({ thread_id: idSchema, run_id: idSchema });
const threadlessRunParams = z.object({ run_id: idSchema });

/** A list in a query, as LangGraph SDKs send one: a single value as it is, several as a JSON array. */
export const listParam = <T extends z.ZodType<string>>(item: T) =>
  z
    .string()
    .max(2048)
    .transform((value, context) => {
      if (!value.startsWith("[")) return [value];
      try {
        return JSON.parse(value) as unknown;
      } catch {
        context.addIssue({ code: "custom", message: "must be a value or a JSON array of values" });
        return z.NEVER;
      }
    })
    .pipe(z.array(item).max(20));

const SELECT_FIELDS = Object.keys(runView.shape) as [keyof RunView, ...(keyof RunView)[]];

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(10),
  offset: z.coerce.number().int().min(0).default(0),
  status: z.enum(RUN_STATUSES).optional(),
  select: listParam(z.enum(SELECT_FIELDS)).optional(),
});

const joinStreamQuery = z.object({
  stream_mode: listParam(z.string().max(32)).optional().describe("Follow only these of the run's stream modes"),
  cancel_on_disconnect: z.enum(["0", "1", "true", "false"]).default("0").describe("1: the run is cancelled (wherever it runs) when this client leaves before the end"),
});

/** The `Last-Event-ID` LangGraph Platform reads as "every event from the run's start" (the SDK's `useStream` rejoins a run with it). */
const FROM_THE_START = "-1";

export const lastEventIdHeader = z.looseObject({
  "last-event-id": z.string().max(512).optional().describe("The id of the last event received: the stream resumes after it; `-1`: from the run's start"),
});

const cancelQuery = z.object({
  wait: z.enum(["0", "1", "true", "false"]).default("0").describe("1: answer once the run has stopped (204); 0: answer at once (202)"),
  action: z.enum(["interrupt", "rollback"]).default("interrupt").describe("interrupt: the run ends `interrupted`; rollback: it is deleted once it stopped (a queued one at once)"),
});

const sseStream = z.string().describe(
  "Server-sent events as LangGraph streams them: `metadata` (`{ run_id, thread_id }`), then one event per graph event of the modes followed " +
    "(`values`, `updates`, `messages` for `messages-tuple`, `messages/metadata`, `messages/partial` and `messages/complete` for `messages`, `custom`), each with id `<run_id>:<index>`; `error` (`{ error, message }`) if the run failed; then `end`.",
);
const outcome = z.record(z.string(), z.unknown()).describe("The thread's values once the run ended; with `__interrupt__` when it waits on one, or `__error__` when the run failed");
const THREAD_RUN_ERRORS = [...RUN_CREATE_ERRORS, "THREAD_BUSY"] as const;

const tags = ["langgraph"];
const truthy = (flag: string) => flag === "1" || flag === "true";

/**
 * The LangGraph API's runs of a thread. A run is a message queued on the thread (`run_id` is its id),
 * run by whichever replica holds the thread's run lease, streamed from that replica's buffer or, on
 * any other, from the run event log.
 */
export const langgraphRunRoutes: FastifyPluginAsyncZod<RunStarterServices & Pick<LanggraphServices, "streams">> = async (app, gateway) => {
  const { agents, stores, streams } = gateway;
  const { threadForRun, startRun } = langgraphRunStarter(gateway);
  const rateLimit = runRateLimit(gateway.config);

  /**
   * A run of the thread, or, without a thread id (the SDK's `joinStream(null, runId)` for a stateless
   * run), a run of any of the tenant's LangGraph threads (their queue scope is ANY_ASSISTANT's).
   */
  const requireRun = async (who: Principal, threadId: string | undefined, runId: string): Promise<{ thread: Thread; run: PendingMessage }> => {
    const { tenantId } = who;
    if (threadId === undefined) {
      const run = await stores.queue.getMessage(runId, { tenantId, assistantId: ANY_ASSISTANT });
      const thread = run && (await stores.threads.getThread(tenantId, run.threadId));
      if (!run || !thread || !mayUseThread(who, thread)) throw new HttpError("NOT_FOUND", `Run ${runId} not found`);
      return { thread, run };
    }
    const thread = await requireThread(gateway, who, threadId);
    const run = await stores.queue.getMessage(runId, queueScopeOf(thread));
    if (!run || run.threadId !== thread.id) throw new HttpError("NOT_FOUND", `Run ${runId} not found on thread ${threadId}`);
    return { thread, run };
  };

  app.post(
    "/threads/:thread_id/runs",
    {
      config: { rateLimit },
      schema: {
        tags,
        summary: "Queue a run on the thread and answer at once (LangGraph API)",
        params: threadParams,
        body: runCreateSchema,
        response: { 200: runView, ...bodyErrors(...THREAD_RUN_ERRORS) },
      },
    },
    async (request, reply) => {
      const plan = planRun(request.body, request.headers);
      const thread = await threadForRun(principalOf(request), request.params.thread_id, request.body.if_not_exists);
      const { result } = await startRun(principalOf(request), thread, request.body, plan, "queue");
      const run = await stores.queue.getMessage(result.messageId, queueScopeOf(thread));
      if (!run) throw new HttpError("NOT_FOUND", `Run ${result.messageId} was deleted with its thread`);
      locateRun(reply, thread.id, run.id);
      return toRunView(run, thread);
    },
  );

  app.post(
    "/threads/:thread_id/runs/stream",
    {
      config: { rateLimit },
      schema: {
        tags,
        summary: "Queue a run on the thread and stream it (LangGraph API)",
        description: "The stream's `Location` header is where it resumes (`GET …/runs/{run_id}/stream` with `Last-Event-ID`), on any replica.",
        params: threadParams,
        body: runCreateSchema,
        response: { 200: { description: "The run's events", content: { "text/event-stream": { schema: sseStream } } }, ...bodyErrors(...THREAD_RUN_ERRORS, "TOO_MANY_STREAMS") },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const plan = planRun(request.body, request.headers);
      const thread = await threadForRun(principalOf(request), request.params.thread_id, request.body.if_not_exists);
      // Taken before the run is queued: a refused stream queues nothing.
      const place = streams.take(tenantId);
      try {
        const { agent, result } = await startRun(principalOf(request), thread, request.body, plan, "stream");
        locateRun(reply, thread.id, result.messageId, { resumable: true });
        const sse = gatewaySseOptions(gateway, place);
        const onDisconnect = plan.cancelOnDisconnect ? cancelRun(agent, result.messageId) : undefined;
        return await streamRun(reply, { runId: result.messageId, attempt: 1, chunks: result.stream, modes: plan.streamModes, announce: true, sse, onDisconnect });
      } catch (error) {
        // Given back at once when no stream opened (the stream's end gives it back otherwise; twice is harmless).
        place();
        throw error;
      }
    },
  );

  app.post(
    "/threads/:thread_id/runs/wait",
    {
      config: { rateLimit },
      schema: {
        tags,
        summary: "Queue a run on the thread and answer once it ended (LangGraph API)",
        description: "A run that failed still answers 200, its failure in `__error__` (LangGraph's shape).",
        params: threadParams,
        body: runCreateSchema,
        response: { 200: outcome, ...bodyErrors(...THREAD_RUN_ERRORS) },
      },
    },
    async (request, reply) => {
      const plan = planRun(request.body, request.headers);
      const thread = await threadForRun(principalOf(request), request.params.thread_id, request.body.if_not_exists);
      const { agent, result } = await startRun(principalOf(request), thread, request.body, plan, "wait");
      locateRun(reply, thread.id, result.messageId);
      return runOutcomeValues(agent, await result.completion);
    },
  );

  app.get(
    "/threads/:thread_id/runs",
    {
      schema: {
        tags,
        summary: "The thread's runs, newest first: queued, running and the latest 1,000 that ended (LangGraph API)",
        params: threadParams,
        querystring: listQuery,
        response: { 200: z.array(runView.partial()), ...inputErrors("NOT_FOUND") },
      },
    },
    async (request) => {
      const thread = await requireThread(gateway, principalOf(request), request.params.thread_id);
      const queued = threadScope(thread);
      const { limit, offset, status, select } = request.query;
      // Running ones first: one that ends between the reads is then found ended, never missed.
      const [pending, processing] = await Promise.all([stores.queue.getPendingMessages(queued), stores.queue.getProcessingMessages(queued)]);
      const ended = await stores.langGraph.latestRuns(queued, { limit: 1000 });
      const endedIds = new Set(ended.map((run) => run.id));
      const runs = [...ended, ...processing.filter((run) => !endedIds.has(run.id)), ...pending.filter((run) => !endedIds.has(run.id))]
        .map((run) => toRunView(run, thread))
        .filter((run) => status === undefined || run.status === status)
        .sort((a, b) => b.created_at.getTime() - a.created_at.getTime())
        .slice(offset, offset + limit);
      return select ? runs.map((run) => Object.fromEntries(select.map((field) => [field, run[field]]))) : runs;
    },
  );

  app.get(
    "/threads/:thread_id/runs/:run_id",
    { schema: { tags, summary: "Read a run (LangGraph API)", params: runParams, response: { 200: runView, ...inputErrors("NOT_FOUND") } } },
    async (request) => {
      const { thread, run } = await requireRun(principalOf(request), request.params.thread_id, request.params.run_id);
      return toRunView(run, thread);
    },
  );

  app.delete(
    "/threads/:thread_id/runs/:run_id",
    {
      schema: {
        tags,
        summary: "Delete a queued or ended run (LangGraph API)",
        description:
          "A queued run is deleted and never runs; an ended one loses its record and its events. A run in progress answers `409 RUN_IN_PROGRESS` (cancel it first), " +
          "judged with the claim: a run is either deleted and never runs, or runs and is kept. The thread's state (its checkpoints) stays as it is.",
        params: runParams,
        response: { 204: noContent, ...inputErrors("NOT_FOUND", "RUN_IN_PROGRESS") },
      },
    },
    async (request, reply) => {
      const { thread_id, run_id } = request.params;
      const thread = await requireThread(gateway, principalOf(request), thread_id);
      const deleted = await agents.getAgent(threadScope(thread)).deleteRun(run_id);
      if (!deleted) throw new HttpError("NOT_FOUND", `Run ${run_id} not found on thread ${thread_id}`);
      return reply.status(204).send();
    },
  );

  app.get(
    "/threads/:thread_id/runs/:run_id/join",
    {
      schema: {
        tags,
        summary: "Wait for a run to end, wherever it runs, and answer the thread's values (LangGraph API)",
        params: runParams,
        response: { 200: outcome, ...inputErrors("NOT_FOUND") },
      },
    },
    async (request) => {
      const { thread, run } = await requireRun(principalOf(request), request.params.thread_id, request.params.run_id);
      const agent = agents.getAgent(threadScope(thread));
      return runOutcomeValues(agent, await agent.waitForRun(run.id));
    },
  );

  /** Follows a run's stream from its start, or after `Last-Event-ID`, from whichever replica it runs on: the thread's join stream and the threadless one. */
  const followRun = async (
    request: FastifyRequest & { query: z.output<typeof joinStreamQuery>; headers: z.output<typeof lastEventIdHeader> },
    reply: FastifyReply,
    threadId: string | undefined,
    runId: string,
  ) => {
    const tenantId = tenantOf(request);
    const { thread, run } = await requireRun(principalOf(request), threadId, runId);
    const lastEventId = request.headers["last-event-id"];
    const after = lastEventId === undefined || lastEventId === FROM_THE_START ? undefined : resumeIndexOf(lastEventId, run.id);
    const runModes = streamModesOfRun(run);
    const modes = request.query.stream_mode?.filter((mode) => runModes.includes(mode)) ?? runModes;
    const place = streams.take(tenantId);
    locateRun(reply, threadId, run.id, { resumable: true });
    const agent = agents.getAgent(threadScope(thread));
    const chunks = agent.chunkStream(run.id, after ?? -1);
    const onDisconnect = truthy(request.query.cancel_on_disconnect) ? cancelRun(agent, run.id) : undefined;
    return streamRun(reply, { runId: run.id, attempt: Math.max(1, run.attempts), chunks, modes, announce: after === undefined, sse: gatewaySseOptions(gateway, place), onDisconnect });
  };

  const joinStreamResponse = {
    200: { description: "The run's events", content: { "text/event-stream": { schema: sseStream } } },
    ...inputErrors("NOT_FOUND", "TOO_MANY_STREAMS"),
  };

  app.get(
    "/threads/:thread_id/runs/:run_id/stream",
    {
      schema: {
        tags,
        summary: "Follow a run's stream, wherever it runs: from its start, or after `Last-Event-ID` (LangGraph API)",
        params: runParams,
        querystring: joinStreamQuery,
        headers: lastEventIdHeader,
        response: joinStreamResponse,
      },
    },
    (request, reply) => followRun(request, reply, request.params.thread_id, request.params.run_id),
  );

  app.get(
    "/runs/:run_id/stream",
    {
      schema: {
        tags,
        summary: "Follow a run's stream named by its id alone, as a stateless run's is (LangGraph API)",
        description:
          "The run of any of the tenant's LangGraph threads, a stateless run's own thread included, streamed as `GET /threads/{thread_id}/runs/{run_id}/stream` streams it. " +
          "A stateless run's thread, and with it the run, is deleted once the run ended (unless `on_completion: keep`): then `404`.",
        params: threadlessRunParams,
        querystring: joinStreamQuery,
        headers: lastEventIdHeader,
        response: joinStreamResponse,
      },
    },
    (request, reply) => followRun(request, reply, undefined, request.params.run_id),
  );

  app.post(
    "/threads/:thread_id/runs/:run_id/cancel",
    {
      schema: {
        tags,
        summary: "Stop a run, queued or running on any replica (LangGraph API)",
        description:
          "The stop is run control (as `POST /api/runs/abort`): recorded on the run, applied by the replica running it, or by the one taking its thread over. " +
          "A queued run ends at once without running; a run that already ended is left as it is. With `action=rollback` the stopped run is then deleted (its record and events; its checkpoints stay).",
        params: runParams,
        querystring: cancelQuery,
        response: { 202: noContent, 204: noContent, ...inputErrors("NOT_FOUND") },
      },
    },
    async (request, reply) => {
      const { wait, action } = request.query;
      const { thread, run } = await requireRun(principalOf(request), request.params.thread_id, request.params.run_id);
      const agent = agents.getAgent(threadScope(thread));
      if (!truthy(wait)) {
        await cancelRun(agent, run.id)();
        // The stop is recorded; the deletion follows the run's end, here (a replica dying first leaves the run interrupted).
        if (action === "rollback") void agent.rollback(run.id).catch((error: unknown) => request.log.warn({ err: error, runId: run.id }, "rolled-back run not deleted"));
        return reply.status(202).send();
      }
      if (action === "rollback") {
        await agent.rollback(run.id);
        return reply.status(204).send();
      }
      // Within half a run lease when its replica lives; past it, once the replica taking the thread over applied it.
      const { status } = await agent.abort(run.id);
      if (status === undefined) await agent.waitForRun(run.id);
      return reply.status(204).send();
    },
  );
};
