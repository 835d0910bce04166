import type { TaskLifecycleNotifier } from "@axiom-lattice/core";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import { type SseSettingsSource, type SseStream, gatewaySseOptions, openSseStream } from "../http/sse";
import type { TenantStreams } from "../http/tenantStreams";
import { apiErrors } from "../openapi/errorResponses";
import { toTaskLifecycleView } from "../tasks/taskViews";

/** The path segment of the stream under `/api/tasks`, which no task id may take. */
export const TASK_EVENTS_SEGMENT = "events";

const eventStream = z.string().describe(
  'Server-sent events `data: {"type", "data"}`: first `subscribed` (events from then on reach this stream), then one `task_lifecycle` per status ' +
    "change of the tenant's tasks made on any replica, `data` being `{ tenant_id, task_id, status, updated_at, owner_id?, project_id?, workspace_id?, failure_reason? }`. " +
    "Heartbeat comments keep it open while quiet.",
);

export interface TaskEventRoutesOptions extends SseSettingsSource {
  notifiers: { taskLifecycle: Pick<TaskLifecycleNotifier, "subscribe"> };
  streams: TenantStreams;
}

/** `GET /api/tasks/events`: the tenant's task lifecycle events, live, from every replica. */
export const taskEventRoutes: FastifyPluginAsyncZod<TaskEventRoutesOptions> = async (app, options) => {
  const open = new Set<SseStream>();
  // A stream ends only when its client leaves; closing the server would otherwise wait for every one.
  app.addHook("preClose", async () => {
    for (const stream of open) stream.end();
  });

  app.get(
    `/api/tasks/${TASK_EVENTS_SEGMENT}`,
    {
      schema: {
        tags: ["tasks"],
        summary: "Follow the tenant's task status changes (server-sent events)",
        response: { 200: { description: "The tenant's task events", content: { "text/event-stream": { schema: eventStream } } }, ...apiErrors("TOO_MANY_STREAMS") },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const sse = openSseStream(reply, gatewaySseOptions(options, options.streams.take(tenantId)));
      const gone = new Promise<void>((resolve) => reply.raw.once("close", resolve));
      open.add(sse);
      const unsubscribe = options.notifiers.taskLifecycle.subscribe((event) => {
        if (event.tenantId === tenantId) sse.send(undefined, { type: "task_lifecycle", data: toTaskLifecycleView(event) });
      });
      sse.send(undefined, { type: "subscribed", data: { tenant_id: tenantId } });
      await gone;
      unsubscribe();
      open.delete(sse);
    },
  );
};
