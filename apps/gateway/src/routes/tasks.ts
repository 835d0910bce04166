import { type TaskService, type TaskUpdate, taskRunThreadOf } from "@axiom-lattice/agent";
import { boundedJson, fieldRules as rules } from "@axiom-lattice/core";
import { type CreateTaskRequest, type TaskListFilter } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import { BODY_CODES, INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { idSchema, noContent } from "../http/ids";
import { pageBody, pageQuery, pageView } from "../http/pageWire";
import {  } from "../shared/lookups";
import type { GatewayStores } from "../stores/gatewayStores";
import { TASK_EVENTS_SEGMENT } from "./taskEvents";
import { outcomeView, statusSchema, taskView, toOutcomeView, toTaskView } from "../tasks/taskViews";
import { THREAD_RUNS_DESCRIPTION, threadRunsPage } from "./threadRuns";
import { runRecordView, toRunRecordView } from "./threadViews";

// `GET /api/tasks/events` is the event stream: a task of that id could never be read.
const taskIdSchema = idSchema.refine((id) => id !== TASK_EVENTS_SEGMENT, `must not be "${TASK_EVENTS_SEGMENT}"`);
const taskParams = z.object({ id: idSchema });

const createSchema = z.strictObject({
  id: taskIdSchema.optional().describe("Chosen by the client, unique within the tenant; generated when absent"),
  title: rules.string.trim().min(1).max(500),
  description: rules.string.max(10_000).optional(),
  owner_type: z.enum(["user", "agent"]).describe("`agent`: `owner_id` is an assistant of the tenant (and a bot of `project_id`, when given)"),
  owner_id: idSchema,
  priority: rules.priority.optional().describe("Default 0"),
  due_date: z.iso
    .datetime({ offset: true })
    .transform((at) => new Date(at))
    .optional(),
  metadata: boundedJson(z.record(z.string().max(256), z.unknown())).optional().describe("Free-form JSON object, kept as given"),
  parent_id: idSchema.optional().describe("A task of the tenant this one is part of"),
  source_id: idSchema.optional(),
  require_review: z.boolean().optional(),
  dependencies: z.array(idSchema).max(100).optional(),
  workspace_id: idSchema.optional(),
  project_id: idSchema.optional().describe("A project of the tenant"),
});

const updateSchema = createSchema
  .pick({ title: true, description: true, priority: true, due_date: true, metadata: true, require_review: true, dependencies: true })
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
  owner_type: z.enum(["user", "agent"]).optional(),
  owner_id: idSchema.optional(),
  project_id: idSchema.optional(),
  workspace_id: idSchema.optional(),
  parent_id: idSchema.optional(),
  ...pageQuery,
});

const resumeSchema = z.strictObject({
  resume: boundedJson(z.unknown())
    .refine((value) => value !== undefined, "required")
    .describe("Any JSON: the value the run's question (`interrupt()`) returns, as the runs API's `command.resume`"),
});

/** The store's request for a create body. */
const toCreateRequest = (body: z.output<typeof createSchema>): CreateTaskRequest => ({
  id: body.id,
  title: body.title,
  description: body.description,
  ownerType: body.owner_type,
  ownerId: body.owner_id,
  priority: body.priority ?? 0,
  dueDate: body.due_date,
  metadata: body.metadata,
  parentId: body.parent_id,
  sourceId: body.source_id,
  requireReview: body.require_review,
  dependencies: body.dependencies,
  workspaceId: body.workspace_id,
  projectId: body.project_id,
});

/** The service's update for a change body; an absent field keeps its value. */
const toTaskUpdate = (body: z.output<typeof updateSchema>): TaskUpdate => ({
  title: body.title,
  description: body.description,
  priority: body.priority,
  dueDate: body.due_date,
  metadata: body.metadata,
  requireReview: body.require_review,
  dependencies: body.dependencies,
  status: body.status,
});

const toListFilter = (query: z.output<typeof listSchema>): TaskListFilter => ({
  status: query.status,
  ownerType: query.owner_type,
  ownerId: query.owner_id,
  projectId: query.project_id,
  workspaceId: query.workspace_id,
  parentId: query.parent_id,
});

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
          "assistant to be a bot of it (else `409 NOT_A_PROJECT_MEMBER`). `context`, `status`, `result` and `failure_reason` are the runtime's to write.",
        body: createSchema,
        response: { 201: taskView, ...apiErrors(...BODY_CODES, "NOT_FOUND", "ALREADY_EXISTS", "NOT_A_PROJECT_MEMBER") },
      },
    },
    async (request, reply) => {
      const task = await tasks.create(tenantOf(request), toCreateRequest(request.body));
      return reply.status(201).send(toTaskView(task));
    },
  );

  app.get(
    "/api/tasks",
    {
      schema: {
        tags,
        summary: "List the tenant's tasks matching every filter given, oldest first, a page at a time",
        querystring: listSchema,
        response: { 200: pageView("tasks", taskView), ...apiErrors(...INPUT_CODES, "INVALID_CURSOR") },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const page = await stores.tasks.listTasks(tenantOf(request), { limit, cursor }, toListFilter(request.query));
      return pageBody("tasks", page, toTaskView);
    },
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
    async (request) => toTaskView(await tasks.update(tenantOf(request), request.params.id, toTaskUpdate(request.body))),
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
    async (request) => toOutcomeView(await tasks.get(tenantOf(request), request.params.id)),
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
      return pageBody("runs", await threadRunsPage(queue, place, request.query), toRunRecordView);
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
