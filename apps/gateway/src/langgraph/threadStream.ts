import { queueScopeOf } from "@axiom-lattice/core";
import { STREAM_POLL_MS } from "@axiom-lattice/agent";
import type { PendingMessage, Thread } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { principalOf, tenantOf } from "../auth/authentication";
import type { LanggraphServices } from "./langgraphServices";
import { HttpError } from "../http/errors";
import { gatewaySseOptions, openSseStream } from "../http/sse";
import { idSchema } from "../http/ids";
import { requireThread, threadScope } from "../shared/lookups";
import { parseStreamEventId, streamEventId } from "../shared/streamEventIds";
import { inputErrors } from "./errors";
import { sseEventOf } from "./runStream";
import { streamModesOfRun } from "./runView";
import { lastEventIdHeader, listParam } from "./runs";

const threadParams = z.object({ thread_id: idSchema });
const query = z.object({
  stream_mode: listParam(z.string().max(32)).optional().describe("Follow only these of each run's stream modes (default: every mode the run was created with)"),
});
const tags = ["langgraph"];

/**
 * The thread's next run to follow: the oldest of those not followed yet that are queued, running,
 * or ended since `since` (a run that came and went between two looks is still followed, from its log).
 */
async function nextRun({ stores }: Pick<LanggraphServices, "stores">, thread: Thread, followed: ReadonlySet<string>, since: number): Promise<PendingMessage | undefined> {
  const scope = threadScope(thread);
  const [ended, processing, pending] = await Promise.all([
    stores.langGraph.latestRuns(scope, { limit: 100 }),
    stores.queue.getProcessingMessages(scope),
    stores.queue.getPendingMessages(scope),
  ]);
  return [...ended.filter((run) => run.createdAt.getTime() >= since), ...processing, ...pending]
    .filter((run) => !followed.has(run.id))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())[0];
}

/**
 * `GET /threads/{id}/stream` (the SDK's `threads.joinStream`): the events of the thread's runs, one
 * run after the other as they run, each opened by its `metadata`, with the ids of the runs' own
 * streams (`<run_id>:<index>`), until the client leaves. `Last-Event-ID` resumes within that run,
 * then follows the runs after it.
 */
export const langgraphThreadStreamRoutes: FastifyPluginAsyncZod<Pick<LanggraphServices, "stores" | "agents" | "streams" | "config" | "metrics">> = async (app, gateway) => {
  // A thread stream waits for runs without end: closing the server cuts it (the client reconnects elsewhere).
  const closing = new AbortController();
  app.addHook("preClose", async () => closing.abort());

  app.get(
    "/threads/:thread_id/stream",
    {
      schema: {
        tags,
        summary: "Follow the thread's runs, as they come, until the client leaves (LangGraph API)",
        params: threadParams,
        querystring: query,
        headers: lastEventIdHeader,
        response: {
          200: { description: "The runs' events, as `GET /threads/{thread_id}/runs/{run_id}/stream` streams each (without `end`)", content: { "text/event-stream": { schema: z.string() } } },
          ...inputErrors("NOT_FOUND", "TOO_MANY_STREAMS"),
        },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const thread = await requireThread(gateway, principalOf(request), request.params.thread_id);
      const lastEventId = request.headers["last-event-id"];
      let resume = lastEventId === undefined ? undefined : parseStreamEventId(lastEventId);
      const resumed = resume && (await gateway.stores.queue.getMessage(resume.messageId, queueScopeOf(thread)));
      if (resume && resumed?.threadId !== thread.id) throw new HttpError("INVALID_REQUEST", `The Last-Event-ID header names run ${resume.messageId}, not a run of thread ${thread.id}`);
      const agent = gateway.agents.getAgent(threadScope(thread));
      const sse = openSseStream(reply, gatewaySseOptions(gateway, gateway.streams.take(tenantId)));
      const followed = new Set<string>();
      const since = resumed ? resumed.createdAt.getTime() : Date.now();
      try {
        while (!sse.closed) {
          if (closing.signal.aborted) return sse.abort();
          const run = resumed && !followed.has(resumed.id) ? resumed : await nextRun(gateway, thread, followed, since);
          if (!run) {
            await sleep(STREAM_POLL_MS, undefined, { signal: closing.signal }).catch(() => undefined);
            continue;
          }
          followed.add(run.id);
          const runModes = streamModesOfRun(run);
          const modes = request.query.stream_mode?.filter((mode) => runModes.includes(mode)) ?? runModes;
          const after = resume?.messageId === run.id ? resume.index : -1;
          resume = undefined;
          if (after === -1) sse.sendEvent("metadata", undefined, { run_id: run.id, thread_id: thread.id });
          for await (const chunk of agent.chunkStream(run.id, after)) {
            const event = sseEventOf(chunk, modes);
            if (event && !sse.sendEvent(event.event, streamEventId(run.id, chunk.index), event.data)) return;
          }
        }
      } finally {
        sse.end();
      }
    },
  );
};
