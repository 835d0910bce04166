import { type Agent, ThreadBusyError } from "@axiom-lattice/agent";
import type { Thread } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import { type GatewayContext, gatewayContextOf } from "../context/gatewayContext";
import { gatewaySseOptions } from "../http/sse";
import { threadScope } from "../routes/lookups";
import { bodyErrors } from "./errors";
import { runOutcomeValues } from "./runOutcome";
import { runRateLimit } from "./runRateLimit";
import { RUN_CREATE_ERRORS, type RunCreateBody, planRun, runCreateSchema } from "./runRequest";
import { langgraphRunStarter } from "./runStarter";
import { cancelRun, streamRun } from "./runStream";
import { ANY_ASSISTANT } from "./threadView";

/** How often, and how long apart, a stateless run's thread deletion is tried while its processor lets go of it. */
const DELETE_ATTEMPTS = 20;
const DELETE_RETRY_MS = 250;

const sseStream = z.string().describe("Server-sent events, as `POST /threads/{thread_id}/runs/stream` streams them");
const tags = ["langgraph"];

/**
 * Deletes a stateless run's thread once the run ended (`on_completion: delete`, the default), retrying
 * while the thread's processor still holds its run lease. A replica that dies first leaves the thread.
 */
export async function deleteWhenEnded(gateway: GatewayContext, agent: Agent, thread: Thread, runId: string): Promise<void> {
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
export const langgraphStatelessRunRoutes: FastifyPluginAsyncZod = async (app) => {
  const gateway = gatewayContextOf(app);
  const { startRun } = langgraphRunStarter(gateway);
  const rateLimit = runRateLimit(gateway.config);

  /** A thread for one run; deleted again when the run could not be queued. */
  const startOnOwnThread = async <M extends "stream" | "wait">(tenantId: string, body: RunCreateBody, mode: M) => {
    const plan = planRun(body);
    const thread = await gateway.stores.threads.createThread(tenantId, { assistantId: ANY_ASSISTANT });
    try {
      return { thread, plan, ...(await startRun(thread, body, plan, mode)) };
    } catch (error) {
      await gateway.agents.deleteThread(threadScope(thread));
      throw error;
    }
  };

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
        const { thread, plan, agent, result } = await startOnOwnThread(tenantId, request.body, "stream");
        reply.header("content-location", `/runs/${result.messageId}`);
        try {
          const onDisconnect = plan.cancelOnDisconnect ? cancelRun(agent, result.messageId) : undefined;
          return await streamRun(reply, { runId: result.messageId, threadId: thread.id, chunks: result.stream, modes: plan.streamModes, announce: true, sse: gatewaySseOptions(gateway, place), onDisconnect });
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
      const { thread, agent, result } = await startOnOwnThread(tenantOf(request), request.body, "wait");
      reply.header("content-location", `/runs/${result.messageId}`);
      const values = await runOutcomeValues(agent, await result.completion);
      if (request.body.on_completion === "delete") void deleteWhenEnded(gateway, agent, thread, result.messageId);
      return values;
    },
  );
};
