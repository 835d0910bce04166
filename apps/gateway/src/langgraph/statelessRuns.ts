import { queueScopeOf } from "@axiom-lattice/core";
import { type Agent, type RunMode, ThreadBusyError } from "@axiom-lattice/agent";
import { ANY_ASSISTANT, type Thread } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { principalOf, tenantOf } from "../auth/authentication";
import type { Principal } from "../auth/principal";
import { RUN_OWN_THREAD_TTL_MINUTES } from "../defaults";
import type { LanggraphServices } from "./langgraphServices";
import { HttpError } from "../http/errors";
import { gatewaySseOptions } from "../http/sse";
import { requireAssistant, threadScope } from "../shared/lookups";
import { bodyErrors } from "./errors";
import { locateRun } from "./runHeaders";
import { runOutcomeValues } from "./runOutcome";
import { runRateLimit } from "../shared/runRateLimit";
import { RUN_CREATE_ERRORS, type RunCreateBody, type RunPlan, planRun, runCreateSchema } from "./runRequest";
import { type RunStarterServices, langgraphRunStarter } from "./runStarter";
import { cancelRun, streamRun } from "./runStream";
import { runView, toRunView } from "./runView";

/**
 * A run of a batch. The JS SDK's `createBatch` sends each payload's keys as its caller wrote them
 * (`streamMode`, `onCompletion`, `assistantId` beside `assistant_id`): camelCase keys are read as
 * their snake_case names, a name given both ways once.
 */
const batchRunSchema = z.preprocess((item) => {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return item;
  const entries = Object.entries(item).map(([key, value]) => [key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`), value] as const);
  return Object.fromEntries(entries.filter(([key], index) => entries.findIndex(([other]) => other === key) === index));
}, runCreateSchema);

/** Most runs one batch queues. */
const MAX_BATCH_RUNS = 100;

/** How often, and how long apart, a stateless run's thread deletion is tried while its processor lets go of it. */
const DELETE_ATTEMPTS = 20;
const DELETE_RETRY_MS = 250;

const sseStream = z.string().describe("Server-sent events, as `POST /threads/{thread_id}/runs/stream` streams them");
const tags = ["langgraph"];

/**
 * Deletes a stateless run's thread once the run ended (`on_completion: delete`, the default), retrying
 * while the thread's processor still holds its run lease. Should this replica die first, the thread's
 * TTL ({@link RUN_OWN_THREAD_TTL_MINUTES}) has the expiry sweep delete it.
 */
export async function deleteWhenEnded(gateway: Pick<LanggraphServices, "agents" | "logger">, agent: Agent, thread: Thread, runId: string): Promise<void> {
  try {
    await agent.waitForRun(runId);
    for (let attempt = 1; ; attempt++) {
      try {
        return await gateway.agents.deleteThread(threadScope(thread));
      } catch (error) {
        if (!(error instanceof ThreadBusyError) || attempt === DELETE_ATTEMPTS) throw error;
        await sleep(DELETE_RETRY_MS);
      }
    }
  } catch (error) {
    gateway.logger.warn({ err: error, threadId: thread.id }, "stateless run's thread not deleted");
  }
}

/**
 * The LangGraph API's stateless runs: each runs on a thread of its own, created for it and deleted
 * once it ended (unless `on_completion: keep`), so it sees no earlier conversation.
 */
export const langgraphStatelessRunRoutes: FastifyPluginAsyncZod<RunStarterServices & Pick<LanggraphServices, "streams">> = async (app, gateway) => {
  const { startRun, requireRunnable } = langgraphRunStarter(gateway);
  const rateLimit = runRateLimit(gateway.config);

  /** A thread for one run; deleted again when the run could not be queued. */
  const startOnOwnThread = async <M extends RunMode>(who: Principal, body: RunCreateBody, mode: M, plan: RunPlan) => {
    requireRunnable(who, body);
    const ttlMinutes = body.on_completion === "delete" ? RUN_OWN_THREAD_TTL_MINUTES : undefined;
    const thread = await gateway.stores.threads.createThread(who.tenantId, { assistantId: ANY_ASSISTANT, ttlMinutes });
    try {
      return { thread, plan, ...(await startRun(who, thread, body, plan, mode)) };
    } catch (error) {
      await gateway.agents.deleteThread(threadScope(thread));
      throw error;
    }
  };

  /** A background run on a thread of its own; the thread goes once the run ended (unless `on_completion: keep`). */
  const startInBackground = async (who: Principal, body: RunCreateBody, plan: RunPlan) => {
    const { thread, agent, result } = await startOnOwnThread(who, body, "queue", plan);
    if (body.on_completion === "delete") void deleteWhenEnded(gateway, agent, thread, result.messageId);
    const run = await gateway.stores.queue.getMessage(result.messageId, queueScopeOf(thread));
    if (!run) throw new HttpError("NOT_FOUND", `Run ${result.messageId} was deleted with its thread`);
    /** Stops the run (still queued, it never runs) and deletes its thread: for a batch refused part-way. */
    const withdraw = async () => {
      await agent.abort(run.id);
      await deleteWhenEnded(gateway, agent, thread, run.id);
    };
    return { view: toRunView(run, thread), withdraw };
  };

  app.post(
    "/runs",
    {
      config: { rateLimit },
      schema: {
        tags,
        summary: "Queue a run on a thread of its own and answer at once (LangGraph API)",
        description: "The run's thread is in the answer (`thread_id`): read, join or stream the run there. It is deleted once the run ended, unless `on_completion: keep`.",
        body: runCreateSchema,
        response: { 200: runView, ...bodyErrors(...RUN_CREATE_ERRORS) },
      },
    },
    async (request, reply) => {
      const { view } = await startInBackground(principalOf(request), request.body, planRun(request.body, request.headers));
      locateRun(reply, view.thread_id, view.run_id);
      return view;
    },
  );

  app.post(
    "/runs/batch",
    {
      config: { rateLimit },
      schema: {
        tags,
        summary: "Queue several runs, each on a thread of its own (LangGraph API)",
        description:
          "Every run is checked before any is queued: a refused batch queues nothing. A queue that fills part-way (`429 QUEUE_FULL`) stops the runs the batch had queued, which never run, and deletes their threads.",
        body: z.array(batchRunSchema).min(1).max(MAX_BATCH_RUNS),
        response: { 200: z.array(runView), ...bodyErrors(...RUN_CREATE_ERRORS) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const plans = request.body.map((body) => planRun(body, request.headers));
      for (const body of request.body) {
        requireRunnable(principal, body);
        await requireAssistant(gateway, principal.tenantId, body.assistant_id);
      }
      const started: Array<Awaited<ReturnType<typeof startInBackground>>> = [];
      try {
        for (const [index, body] of request.body.entries()) started.push(await startInBackground(principal, body, plans[index]));
      } catch (error) {
        await Promise.all(started.map(({ withdraw }) => withdraw()));
        throw error;
      }
      return started.map(({ view }) => view);
    },
  );

  app.post(
    "/runs/stream",
    {
      config: { rateLimit },
      schema: {
        tags,
        summary: "Stream a run on a thread of its own (LangGraph API)",
        body: runCreateSchema,
        response: { 200: { description: "The run's events", content: { "text/event-stream": { schema: sseStream } } }, ...bodyErrors(...RUN_CREATE_ERRORS, "TOO_MANY_STREAMS") },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const place = gateway.streams.take(tenantId);
      try {
        const { thread, plan, agent, result } = await startOnOwnThread(principalOf(request), request.body, "stream", planRun(request.body, request.headers));
        locateRun(reply, undefined, result.messageId);
        try {
          const onDisconnect = plan.cancelOnDisconnect ? cancelRun(agent, result.messageId) : undefined;
          return await streamRun(reply, { runId: result.messageId, attempt: 1, chunks: result.stream, modes: plan.streamModes, announce: true, sse: gatewaySseOptions(gateway, place), onDisconnect });
        } finally {
          // After the stream: deleting the thread drops its buffers, which would cut a slow reader short.
          if (request.body.on_completion === "delete") void deleteWhenEnded(gateway, agent, thread, result.messageId);
        }
      } catch (error) {
        place();
        throw error;
      }
    },
  );

  app.post(
    "/runs/wait",
    {
      config: { rateLimit },
      schema: {
        tags,
        summary: "Run on a thread of its own and answer once it ended (LangGraph API)",
        body: runCreateSchema,
        response: { 200: z.record(z.string(), z.unknown()).describe("The run's final values, or `__error__`"), ...bodyErrors(...RUN_CREATE_ERRORS) },
      },
    },
    async (request, reply) => {
      const { thread, agent, result } = await startOnOwnThread(principalOf(request), request.body, "wait", planRun(request.body, request.headers));
      locateRun(reply, undefined, result.messageId);
      const values = await runOutcomeValues(agent, await result.completion);
      if (request.body.on_completion === "delete") void deleteWhenEnded(gateway, agent, thread, result.messageId);
      return values;
    },
  );
};
