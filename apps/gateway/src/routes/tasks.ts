import { type TaskService, taskOutcomeOf, taskRunThreadOf } from "@axiom-lattice/agent";
import { boundedJson } from "@axiom-lattice/core";
import { TaskStatus, type TaskItem } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import { BODY_CODES, INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { idSchema, noContent } from "../http/ids";
import { pageBody, pageQuery, pageView } from "../http/pagination";
import type { GatewayStores } from "../stores/gatewayStores";
import { TASK_EVENTS_SEGMENT } from "./taskEvents";
import { THREAD_RUNS_DESCRIPTION, threadRunsPage } from "./threadRuns";
import { runRecordView, toRunRecordView } from "./threadViews";

const STATUSES = Object.values(TaskStatus) as [TaskStatus, ...TaskStatus[]];
const statusSchema = z.enum(STATUSES);

// `GET /api/tasks/events` is the event stream: a task of that id could never be read.
const taskIdSchema = idSchema.refine((id) => id !== TASK_EVENTS_SEGMENT, `must not be "${TASK_EVENTS_SEGMENT}"`);
const taskParams = z.object({ id: idSchema });

const createSchema = z.strictObject({
  id: taskIdSchema.optional().describe("Chosen by the client, unique within the tenant; generated when absent"),
  title: z.string().trim().min(1).max(500),
  description: z.string().max(10_000).optional(),
  ownerType: z.enum(["user", "agent"]).describe("`agent`: `ownerId` is an assistant of the tenant (and a bot of `projectId`, when given)"),
  ownerId: idSchema,
  priority: z.number().int().min(-2_147_483_648).max(2_147_483_647).optional().describe("Default 0"),
  dueDate: z.iso
    .datetime({ offset: true })
    .transform((at) => new Date(at))
    .optional(),
  metadata: boundedJson(z.record(z.string().max(256), z.unknown())).optional().describe("Free-form JSON object, kept as given"),
  parentId: idSchema.optional().describe("A task of the tenant this one is part of"),
  sourceId: idSchema.optional(),
  requireReview: z.boolean().optional(),
  dependencies: z.array(idSchema).max(100).optional(),
  workspaceId: idSchema.optional(),
  projectId: idSchema.optional().describe("A project of the tenant"),
});

const updateSchema = createSchema
  .pick({ title: true, description: true, priority: true, dueDate: true, metadata: true, requireReview: true, dependencies: true })
  .partial()
  .extend({
    status: statusSchema
      .optional()
      .describe("A user's task may take any other status; an agent's task only goes from `review` to `completed` or `failed` (approve or reject its work)"),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), "give at least one field to change");

const listSchema = z.strictObject({
  status: z
    .string()
    .transform((list) => list.split(","))
    .pipe(z.array(statusSchema))
    .optional()
    .describe("Comma-separated statuses, any of which matches"),
  ownerType: z.enum(["user", "agent"]).optional(),
  ownerId: idSchema.optional(),
  projectId: idSchema.optional(),
  workspaceId: idSchema.optional(),
  parentId: idSchema.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).max(2_147_483_647).default(0),
});

const resumeSchema = z.strictObject({
  resume: boundedJson(z.unknown())
    .refine((value) => value !== undefined, "required")
    .describe("Any JSON: the value the run's question (`interrupt()`) returns, as the runs API's `command.resume`"),
});

const taskView = z.object({
  id: z.string(),
  tenantId: z.string(),
  ownerType: z.enum(["user", "agent"]),
  ownerId: z.string(),
  title: z.string(),
  description: z.string().optional(),
  status: statusSchema,
  priority: z.number().int(),
  dueDate: z.date().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  parentId: z.string().optional(),
  sourceId: z.string().optional(),
  context: z.record(z.string(), z.unknown()).optional().describe("Written by the task runtime only (where the task runs, who waits for it)"),
  requireReview: z.boolean().optional(),
  dependencies: z.array(z.string()).optional(),
  result: z.unknown().optional(),
  failureReason: z.string().optional(),
  workspaceId: z.string().optional(),
  projectId: z.string().optional(),
  createdAt: z.date(),
  updatedAt: z.date(),
}).meta({ id: "Task" });

const outcomeView = z.object({
  taskId: z.string(),
  status: statusSchema,
  result: z.unknown().optional(),
  failureReason: z.string().optional(),
});

// The fencing token is the runtime's bookkeeping, not part of the task a client sees.
const toTaskView = ({ fencingToken: _fencingToken, ...task }: TaskItem): z.input<typeof taskView> => task;

const tags = ["tasks"];
const taskErrors = apiErrors(...INPUT_CODES, "NOT_FOUND");

/** Tasks CRUD per tenant, with the status changes a client may make, each announced to every replica. */
export const taskRoutes: FastifyPluginAsyncZod<{ tasks: TaskService; stores: Pick<GatewayStores, "queue" | "tasks"> }> = async (app, { tasks, stores }) => {
  const { queue } = stores;

  app.post(
    "/api/tasks",
    {
      schema: {
        tags,
        summary: "Create a task (pending)",
        description:
          "A project, owner assistant or parent task the body names must exist (else `404 NOT_FOUND`); an agent's task in a project needs the " +
          "assistant to be a bot of it (else `409 NOT_A_PROJECT_MEMBER`). `context`, `status`, `result` and `failureReason` are the runtime's to write.",
        body: createSchema,
        response: { 201: taskView, ...apiErrors(...BODY_CODES, "NOT_FOUND", "ALREADY_EXISTS", "NOT_A_PROJECT_MEMBER") },
      },
    },
    async (request, reply) => {
      const task = await tasks.create(tenantOf(request), { ...request.body, priority: request.body.priority ?? 0 });
      return reply.status(201).send(toTaskView(task));
    },
  );

  app.get(
    "/api/tasks",
    {
      schema: {
        tags,
        summary: "List the tenant's tasks matching every filter given, oldest first",
        querystring: listSchema,
        response: { 200: z.object({ tasks: z.array(taskView) }), ...apiErrors(...INPUT_CODES) },
      },
    },
    async (request) => ({ tasks: (await stores.tasks.listTasks(tenantOf(request), request.query)).map(toTaskView) }),
  );

  app.get(
    "/api/tasks/:id",
    { schema: { tags, summary: "Read a task", params: taskParams, response: { 200: taskView, ...taskErrors } } },
    async (request) => toTaskView(await tasks.get(tenantOf(request), request.params.id)),
  );

  app.patch(
    "/api/tasks/:id",
    {
      schema: {
        tags,
        summary: "Change a task (the fields given)",
        description:
          "A status change applies only if the task still has the status it was read with: of concurrent changes one wins, the others answer " +
          "`409 INVALID_TASK_STATE`, as does a change the rules refuse (an agent's task is dispatched and cancelled by its own routes). " +
          "Each status change is announced on `GET /api/tasks/events`.",
        params: taskParams,
        body: updateSchema,
        response: { 200: taskView, ...apiErrors(...BODY_CODES, "NOT_FOUND", "INVALID_TASK_STATE") },
      },
    },
    async (request) => toTaskView(await tasks.update(tenantOf(request), request.params.id, request.body)),
  );

  app.delete(
    "/api/tasks/:id",
    {
      schema: {
        tags,
        summary: "Delete a task",
        description: "Answers `409 TASK_BUSY` while the task is `in_progress`: cancel it first.",
        params: taskParams,
        response: { 204: noContent, ...apiErrors(...INPUT_CODES, "NOT_FOUND", "TASK_BUSY") },
      },
    },
    async (request, reply) => {
      await tasks.delete(tenantOf(request), request.params.id);
      return reply.status(204).send();
    },
  );

  app.get(
    "/api/tasks/:id/result",
    { schema: { tags, summary: "The task's outcome: its status, and its result or failure reason once it has one", params: taskParams, response: { 200: outcomeView, ...taskErrors } } },
    async (request) => taskOutcomeOf(await tasks.get(tenantOf(request), request.params.id)),
  );

  app.get(
    "/api/tasks/:id/runs",
    {
      schema: {
        tags,
        summary: "The runs of the task's thread, as `GET /api/threads/{id}/runs` lists them; none before the task first started",
        description: THREAD_RUNS_DESCRIPTION,
        params: taskParams,
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("runs", runRecordView), ...apiErrors(...INPUT_CODES, "NOT_FOUND", "INVALID_CURSOR") },
      },
    },
    async (request) => {
      const place = taskRunThreadOf(await tasks.get(tenantOf(request), request.params.id));
      if (!place) return pageBody("runs", { items: [], nextCursor: null }, toRunRecordView);
      return pageBody("runs", await threadRunsPage(queue, place.threadId, { tenantId: place.tenantId, assistantId: place.assistantId }, request.query), toRunRecordView);
    },
  );

  app.post(
    "/api/tasks/:id/dispatch",
    {
      schema: {
        tags,
        summary: "Ask for a project task to run: its assistant starts it on the task's own thread, on whichever replica observes it first",
        description:
          "Answers at once, never waiting for the project's task machine: the task is queued for it (`pending`, `context.execution_requested_at` " +
          "stamped, its admission announced in the same transaction), and the machine's next pass starts it, on any replica.",
        params: taskParams,
        response: { 200: taskView, ...apiErrors(...INPUT_CODES, "NOT_FOUND", "TASK_NOT_DISPATCHABLE", "NOT_A_PROJECT_MEMBER", "INVALID_TASK_STATE") },
      },
    },
    async (request) => toTaskView(await tasks.dispatch(tenantOf(request), request.params.id)),
  );

  app.post(
    "/api/tasks/:id/cancel",
    {
      schema: {
        tags,
        summary: "Cancel a task that has not ended: its queued run is dropped, a delegating caller resumes with the cancellation",
        params: taskParams,
        response: { 200: taskView, ...apiErrors(...INPUT_CODES, "NOT_FOUND", "INVALID_TASK_STATE", "LEASE_LOST", "TASK_MACHINE_BUSY") },
      },
    },
    async (request) => toTaskView(await tasks.cancel(tenantOf(request), request.params.id)),
  );

  app.post(
    "/api/tasks/:id/resume",
    {
      schema: {
        tags,
        summary: "Answer the question an interrupted task's run asked: the run goes on from it on the task's thread, and its end settles the task",
        description:
          "Only an `interrupted` task that ran on a thread can be resumed (else `409 INVALID_TASK_STATE`, nothing written); of concurrent resumes one " +
          "wins. The task goes back to `in_progress` and its `context` records `resumed_at` and `resume_value`. A delegated task's caller was " +
          "already resumed with `interrupted` when the task was interrupted: it is not resumed again when the resumed run ends.",
        params: taskParams,
        body: resumeSchema,
        response: { 200: taskView, ...apiErrors(...BODY_CODES, "NOT_FOUND", "INVALID_TASK_STATE", "LEASE_LOST", "TASK_MACHINE_BUSY") },
      },
    },
    async (request) => toTaskView(await tasks.resume(tenantOf(request), request.params.id, request.body.resume)),
  );
};
