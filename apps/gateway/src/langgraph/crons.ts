import type { ScheduledTaskDefinition } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import type { LanggraphServices } from "./langgraphServices";
import { HttpError } from "../http/errors";
import { idSchema, noContent } from "../http/ids";
import { requireAssistant } from "../shared/lookups";
import { assistantIdOf } from "./graphAssistants";
import { LANGGRAPH_CRON_TASK_TYPE, type CronCreateBody, type StoredCron, cronCreateSchema, cronUpdateSchema, runBodyOf, storedCron } from "./cronRequest";
import { type CronView, cronView, toCronView } from "./cronView";
import { bodyErrors, inputErrors } from "./errors";
import { paginate, paginationQuery, selected, sortedBy } from "./searchResults";
import { RUN_CREATE_ERRORS, planForGraph, planRun, runCreateSchema } from "./runRequest";
import { type RunStarterServices, langgraphRunStarter } from "./runStarter";

const SORT_KEYS = ["cron_id", "assistant_id", "thread_id", "created_at", "updated_at", "next_run_date"] as const;
const SELECT_FIELDS = Object.keys(cronView.shape) as [keyof CronView, ...(keyof CronView)[]];

const filterSchema = {
  assistant_id: idSchema.optional(),
  thread_id: idSchema.optional(),
};

const searchSchema = z.strictObject({
  ...filterSchema,
  enabled: z.boolean().optional(),
  ...paginationQuery,
  sort_by: z.enum(SORT_KEYS).default("created_at"),
  sort_order: z.enum(["asc", "desc"]).default("desc"),
  select: z.array(z.enum(SELECT_FIELDS)).min(1).optional().describe("Only these fields of each cron"),
});

const threadParams = z.object({ thread_id: idSchema });
const cronParams = z.object({ cron_id: idSchema });
const CRON_ERRORS = [...RUN_CREATE_ERRORS, "INVALID_CRON"] as const;
const tags = ["langgraph"];

/**
 * The LangGraph API's crons: schedules of the gateway's scheduler (task type `langgraph-cron`), so a
 * fire runs exactly once across the replicas, and each fire queues the cron's run through the queue
 * (`cronFire`). Schedules are read in UTC, as the platform reads them.
 */
export const langgraphCronRoutes: FastifyPluginAsyncZod<RunStarterServices & Pick<LanggraphServices, "schedules">> = async (app, gateway) => {
  const { schedules } = gateway;
  const { threadForRun } = langgraphRunStarter(gateway);

  /** The tenant's LangGraph crons. */
  const crons = (tenantId: string): Promise<ScheduledTaskDefinition[]> => schedules.listOfType(LANGGRAPH_CRON_TASK_TYPE, tenantId);

  const requireCron = async (tenantId: string, cronId: string): Promise<ScheduledTaskDefinition> => {
    const task = await schedules.get(cronId, tenantId);
    if (!task || task.taskType !== LANGGRAPH_CRON_TASK_TYPE) throw new HttpError("NOT_FOUND", `Cron ${cronId} not found`);
    return task;
  };

  /** Checks the cron's run as a run creation would (nothing is stored when refused), then schedules it. */
  const create = async (tenantId: string, body: CronCreateBody, threadId?: string) => {
    const run = runBodyOf(body);
    const runBody = runCreateSchema.parse(run);
    const assistant = await requireAssistant(gateway, tenantId, assistantIdOf(gateway.graphs, body.assistant_id));
    planForGraph(planRun(runBody), runBody, assistant.graph);
    if (threadId !== undefined) await threadForRun(tenantId, threadId, body.if_not_exists);
    const payload: StoredCron = { run, end_time: body.end_time ?? null, ...(threadId === undefined ? { on_run_completed: body.on_run_completed } : {}) };
    const task = await schedules.scheduleCron({ taskType: LANGGRAPH_CRON_TASK_TYPE, tenantId, assistantId: body.assistant_id, threadId, cronExpression: body.schedule, payload });
    return toCronView(body.enabled ? task : await schedules.changeCron(task.taskId, tenantId, { active: false }));
  };

  app.post(
    "/threads/:thread_id/runs/crons",
    {
      schema: {
        tags,
        summary: "Run on the thread on a cron schedule (LangGraph API)",
        description: "Each fire queues the run as `POST /threads/{thread_id}/runs` would, on exactly one replica.",
        params: threadParams,
        body: cronCreateSchema,
        response: { 200: cronView, ...bodyErrors(...CRON_ERRORS) },
      },
    },
    async (request) => create(tenantOf(request), request.body, request.params.thread_id),
  );

  app.post(
    "/runs/crons",
    {
      schema: {
        tags,
        summary: "Run on a cron schedule, each fire on a thread of its own (LangGraph API)",
        description: "Each fire's thread is deleted once its run ended, unless `on_run_completed: keep`.",
        body: cronCreateSchema,
        response: { 200: cronView, ...bodyErrors(...CRON_ERRORS) },
      },
    },
    async (request) => create(tenantOf(request), request.body),
  );

  app.post(
    "/runs/crons/search",
    {
      schema: {
        tags,
        summary: "Search the tenant's crons (LangGraph API)",
        body: searchSchema,
        response: { 200: z.array(cronView.partial()), ...bodyErrors() },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const views = (await crons(tenantOf(request)))
        .map(toCronView)
        .filter((cron) => (body.assistant_id === undefined || cron.assistant_id === body.assistant_id) && (body.thread_id === undefined || cron.thread_id === body.thread_id))
        .filter((cron) => body.enabled === undefined || cron.enabled === body.enabled);
      return selected(paginate(reply, sortedBy(views, body.sort_by, body.sort_order), body), body.select);
    },
  );

  app.post(
    "/runs/crons/count",
    { schema: { tags, summary: "Count the tenant's crons that match (LangGraph API)", body: z.strictObject(filterSchema), response: { 200: z.number().int(), ...bodyErrors() } } },
    async (request) => {
      const { assistant_id, thread_id } = request.body;
      return (await crons(tenantOf(request))).filter((task) => (assistant_id === undefined || task.assistantId === assistant_id) && (thread_id === undefined || task.threadId === thread_id))
        .length;
    },
  );

  app.patch(
    "/runs/crons/:cron_id",
    {
      schema: {
        tags,
        summary: "Change a cron (LangGraph API)",
        description: "A new schedule, or enabling it again, fires next after now. A fire in progress keeps what it read.",
        params: cronParams,
        body: cronUpdateSchema,
        response: { 200: cronView, ...bodyErrors(...CRON_ERRORS, "INVALID_SCHEDULE_STATE") },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const task = await requireCron(tenantId, request.params.cron_id);
      const { schedule, enabled, end_time, on_run_completed, ...runFields } = request.body;
      const stored = storedCron.parse(task.payload);
      const run = { ...stored.run, ...runBodyOf(runFields) };
      const runBody = runCreateSchema.parse(run);
      const assistant = await requireAssistant(gateway, tenantId, assistantIdOf(gateway.graphs, runBody.assistant_id));
      planForGraph(planRun(runBody), runBody, assistant.graph);
      const payload: StoredCron = {
        run,
        end_time: end_time === undefined ? stored.end_time : end_time,
        ...(task.threadId === undefined ? { on_run_completed: on_run_completed ?? stored.on_run_completed } : {}),
      };
      return toCronView(await schedules.changeCron(task.taskId, tenantId, { payload, cronExpression: schedule, active: enabled }));
    },
  );

  app.delete(
    "/runs/crons/:cron_id",
    {
      schema: {
        tags,
        summary: "Delete a cron (LangGraph API); a run it queued goes on",
        params: cronParams,
        response: { 204: noContent, ...inputErrors("NOT_FOUND") },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      await schedules.delete((await requireCron(tenantId, request.params.cron_id)).taskId, tenantId);
      return reply.status(204).send();
    },
  );
};
