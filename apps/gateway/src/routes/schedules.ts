import { type DefaultScheduleClient, ScheduleRequestError, scheduleFieldRules as rules } from "@axiom-lattice/core";
import type { ErrorCode, ScheduledTaskDefinition } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { principalOf, tenantOf } from "../auth/authentication";
import { HttpError } from "../http/errors";
import { parseInput } from "../http/validation";
import { BODY_CODES, INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { AGENT_MESSAGE_TASK_TYPE, type EnqueueAgentMessage, agentMessagePayloadSchema, createAgentMessageHandler } from "../schedules/agentMessageHandler";
import { idParams, noContent } from "../http/ids";
import { pageBody, pageQuery, pageView } from "../http/pageWire";
import type { GatewayStores } from "../stores/gatewayStores";
import { requireAssistant } from "../shared/lookups";

export interface ScheduleRoutesOptions {
  client: DefaultScheduleClient;
  /** Where an agent message's assistant is looked up when it is scheduled. */
  stores: Pick<GatewayStores, "assistants">;
  /** Registers the `agent-message` handler with this enqueue (the runtime's client has its own). */
  enqueueMessage?: EnqueueAgentMessage;
}

// The body as JSON. What each value must be comes from core's `scheduleFieldRules` (the client checks
// the rest: task type, timing, cron, time zone); the API adds only its own narrowing: ISO-8601 or
// whole-millisecond times, a task-type alphabet, length bounds, at most 20 retries, no unknown fields.
const ONCE_FIELDS = ["execute_at", "delay_ms"] as const;
const CRON_FIELDS = ["timezone", "max_runs"] as const;

const scheduleSchema = z
  .strictObject({
    task_type: z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/, "must be 1-64 characters of A-Z a-z 0-9 . _ : -").describe('"agent-message", or a task type the server registered'),
    payload: rules.payload.optional().describe("agent-message: { assistant_id, thread_id, message }; another task type's payload is passed to its handler as given"),
    max_retries: rules.maxRetries.max(20).optional().describe("Retries of a failed fire, with exponential backoff (default 3)"),
    catch_up: rules.catchUp.optional().describe("once (default): a fire missed while no replica ran runs once; skip: dropped"),
    execute_at: z
      .union([z.iso.datetime({ offset: true }), rules.executeAt.int().min(0)])
      .transform((at) => (typeof at === "string" ? Date.parse(at) : at))
      .optional()
      .describe("One-shot: when to fire (ISO 8601 with offset, or epoch milliseconds)"),
    delay_ms: rules.delayMs.int().optional().describe("One-shot: fire this many milliseconds from now"),
    cron_expression: z.string().min(1).max(128).optional().describe("Recurring: 5 fields, or 6 with seconds first"),
    timezone: z.string().min(1).max(64).optional().describe("Cron only: IANA time zone the expression is read in (default UTC)"),
    max_runs: rules.maxRuns.optional().describe("Cron only: complete after this many fires"),
  })
  .superRefine((body, context) => {
    // One-shot fields and cron fields do not mix.
    const isCron = body.cron_expression !== undefined;
    for (const field of isCron ? ONCE_FIELDS : CRON_FIELDS) {
      if (body[field] !== undefined) context.addIssue({ code: "custom", path: [field], message: isCron ? "not allowed with cron_expression" : "only allowed with cron_expression" });
    }
  });

const scheduleView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    task_type: z.string(),
    payload: z.record(z.string(), z.unknown()).describe("As given when the schedule was created"),
    execution_type: z.enum(["once", "cron"]),
    execute_at: z.iso.datetime().optional().describe("One-shot: when it fires (moved forward by a retry)"),
    next_run_at: z.iso.datetime().optional().describe("Cron: when the next fire is due"),
    cron_expression: z.string().optional(),
    timezone: z.string().optional(),
    catch_up: z.enum(["once", "skip"]),
    status: z.enum(["pending", "running", "paused", "completed", "cancelled", "failed"]),
    run_count: z.number().int().describe("Fires that ran their handler to completion"),
    max_runs: z.number().int().optional(),
    retry_count: z.number().int().describe("Failed attempts of the current fire so far"),
    max_retries: z.number().int(),
    last_run_at: z.iso.datetime().optional(),
    last_error: z.string().optional(),
    assistant_id: z.string().optional(),
    thread_id: z.string().optional(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Schedule" });

// Times leave the API as ISO strings; they are epoch milliseconds inside.
const isoTime = (ms: number) => new Date(ms).toISOString();
const optionalIsoTime = (ms: number | undefined) => (ms === undefined ? undefined : isoTime(ms));

/** A schedule as the API shows it. */
const toScheduleView = (task: ScheduledTaskDefinition): z.output<typeof scheduleView> => ({
  id: task.taskId,
  tenant_id: task.tenantId,
  task_type: task.taskType,
  payload: task.payload,
  execution_type: task.executionType,
  execute_at: optionalIsoTime(task.executeAt),
  next_run_at: optionalIsoTime(task.nextRunAt),
  cron_expression: task.cronExpression,
  timezone: task.timezone,
  catch_up: task.catchUp,
  status: task.status,
  run_count: task.runCount,
  max_runs: task.maxRuns,
  retry_count: task.retryCount,
  max_retries: task.maxRetries,
  last_run_at: optionalIsoTime(task.lastRunAt),
  last_error: task.lastError,
  assistant_id: task.assistantId,
  thread_id: task.threadId,
  created_at: isoTime(task.createdAt),
  updated_at: isoTime(task.updatedAt),
});

/** A refusal of the schedule client (unknown task type, invalid cron, time zone, …) is the client's 400, nothing stored. */
async function asBadRequest<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ScheduleRequestError) throw new HttpError(error.code, error.message);
    throw error;
  }
}

const tags = ["schedules"];
const oneSchedule = (summary: string, ...codes: ErrorCode[]) => ({
  schema: { tags, summary, params: idParams, response: { 200: scheduleView, ...apiErrors(...INPUT_CODES, "NOT_FOUND", ...codes) } },
});

/**
 * `/api/schedules`: create (one-shot or cron), list, read, cancel, pause and resume schedules of the
 * request's tenant.
 */
export const scheduleRoutes: FastifyPluginAsyncZod<ScheduleRoutesOptions> = async (app, { client, stores, enqueueMessage }) => {
  if (enqueueMessage) client.registerHandler(AGENT_MESSAGE_TASK_TYPE, createAgentMessageHandler(enqueueMessage));

  app.post(
    "/api/schedules",
    {
      schema: {
        tags,
        summary: "Schedule a task: once (execute_at or delay_ms) or recurring (cron_expression)",
        body: scheduleSchema,
        response: {
          201: scheduleView,
          ...apiErrors(...BODY_CODES, "NOT_FOUND", "INVALID_CRON", "INVALID_TIMEZONE", "INVALID_SCHEDULE", "EXECUTE_AT_IN_PAST", "UNKNOWN_TASK_TYPE", "ALREADY_EXISTS"),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      // The client refuses this too, naming its own (camelCase) fields: here the API names its own.
      if (body.cron_expression === undefined && (body.execute_at === undefined) === (body.delay_ms === undefined)) {
        throw new HttpError("INVALID_SCHEDULE", "Give exactly one of execute_at and delay_ms, or a cron_expression");
      }
      // An agent message names its assistant and thread; the schedule is linked to both for lookups.
      const message = body.task_type === AGENT_MESSAGE_TASK_TYPE ? parseInput(agentMessagePayloadSchema, body.payload, "payload") : undefined;
      // Refused now rather than after every retry of its first fire, as a run naming it would be.
      if (message) await requireAssistant({ stores }, principalOf(request), message.assistant_id);
      const input = {
        taskType: body.task_type,
        payload: body.payload,
        maxRetries: body.max_retries,
        catchUp: body.catch_up,
        tenantId: tenantOf(request),
        assistantId: message?.assistant_id,
        threadId: message?.thread_id,
      };
      const task = await asBadRequest(
        body.cron_expression !== undefined
          ? client.scheduleCron({ ...input, cronExpression: body.cron_expression, timezone: body.timezone, maxRuns: body.max_runs })
          : client.scheduleOnce({ ...input, executeAt: body.execute_at, delayMs: body.delay_ms }),
      );
      return reply.status(201).send(toScheduleView(task));
    },
  );

  app.get(
    "/api/schedules",
    {
      schema: {
        tags,
        summary: "List the tenant's schedules, oldest first, a page at a time",
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("schedules", scheduleView), ...apiErrors(...INPUT_CODES, "INVALID_CURSOR") },
      },
    },
    async (request) => pageBody("schedules", await client.list(request.query, tenantOf(request)), toScheduleView),
  );

  app.get("/api/schedules/:id", oneSchedule("Read a schedule"), async (request) => {
    const task = await client.get(request.params.id, tenantOf(request));
    if (!task) throw new HttpError("NOT_FOUND", `Schedule ${request.params.id} not found`);
    return toScheduleView(task);
  });

  // Cancelled, not erased: the schedule stays readable (status `cancelled`), as its fires' runs do.
  app.delete(
    "/api/schedules/:id",
    {
      schema: {
        tags,
        summary: "Cancel a schedule",
        params: idParams,
        response: { 204: noContent, ...apiErrors(...INPUT_CODES, "NOT_FOUND", "INVALID_SCHEDULE_STATE") },
      },
    },
    async (request, reply) => {
      await client.cancel(request.params.id, tenantOf(request));
      return reply.status(204).send();
    },
  );

  app.post("/api/schedules/:id/pause", oneSchedule("Pause a schedule", "INVALID_SCHEDULE_STATE"), async (request) =>
    toScheduleView(await client.pause(request.params.id, tenantOf(request))),
  );

  app.post("/api/schedules/:id/resume", oneSchedule("Resume a paused schedule", "INVALID_SCHEDULE_STATE"), async (request) =>
    toScheduleView(await client.resume(request.params.id, tenantOf(request))),
  );
};
