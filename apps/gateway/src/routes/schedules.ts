import { type DefaultScheduleClient, ScheduleRequestError, scheduleFieldRules as rules } from "@axiom-lattice/core";
import type { ErrorCode, ScheduledTaskDefinition } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import { HttpError } from "../http/errors";
import { parseInput } from "../http/validation";
import { BODY_CODES, INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { AGENT_MESSAGE_TASK_TYPE, type EnqueueAgentMessage, agentMessagePayloadSchema, createAgentMessageHandler } from "../schedules/agentMessageHandler";
import { idParams, noContent } from "../http/ids";

export interface ScheduleRoutesOptions {
  client: DefaultScheduleClient;
  /** Registers the `agent-message` handler with this enqueue (the runtime's client has its own). */
  enqueueMessage?: EnqueueAgentMessage;
}

// The body as JSON. What each value must be comes from core's `scheduleFieldRules` (the client checks
// the rest: task type, timing, cron, time zone); the API adds only its own narrowing: ISO-8601 or
// whole-millisecond times, a task-type alphabet, length bounds, at most 20 retries, no unknown fields.
const ONCE_FIELDS = ["executeAt", "delayMs"] as const;
const CRON_FIELDS = ["timezone", "maxRuns"] as const;

const scheduleSchema = z
  .strictObject({
    taskType: z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/, "must be 1-64 characters of A-Z a-z 0-9 . _ : -").describe('"agent-message", or a task type the server registered'),
    payload: rules.payload.optional().describe("agent-message: { assistantId, threadId, message }"),
    maxRetries: rules.maxRetries.max(20).optional().describe("Retries of a failed fire, with exponential backoff (default 3)"),
    catchUp: rules.catchUp.optional().describe("once (default): a fire missed while no replica ran runs once; skip: dropped"),
    executeAt: z
      .union([z.iso.datetime({ offset: true }), rules.executeAt.int().min(0)])
      .transform((at) => (typeof at === "string" ? Date.parse(at) : at))
      .optional()
      .describe("One-shot: when to fire (ISO 8601 with offset, or epoch milliseconds)"),
    delayMs: rules.delayMs.int().optional().describe("One-shot: fire this many milliseconds from now"),
    cronExpression: z.string().min(1).max(128).optional().describe("Recurring: 5 fields, or 6 with seconds first"),
    timezone: z.string().min(1).max(64).optional().describe("Cron only: IANA time zone the expression is read in (default UTC)"),
    maxRuns: rules.maxRuns.optional().describe("Cron only: complete after this many fires"),
  })
  .superRefine((body, context) => {
    // One-shot fields and cron fields do not mix.
    const isCron = body.cronExpression !== undefined;
    for (const field of isCron ? ONCE_FIELDS : CRON_FIELDS) {
      if (body[field] !== undefined) context.addIssue({ code: "custom", path: [field], message: isCron ? "not allowed with cronExpression" : "only allowed with cronExpression" });
    }
  });

const scheduleView = z.object({
  id: z.string(),
  tenantId: z.string(),
  taskType: z.string(),
  payload: z.record(z.string(), z.unknown()),
  executionType: z.enum(["once", "cron"]),
  executeAt: z.iso.datetime().optional().describe("One-shot: when it fires (moved forward by a retry)"),
  nextRunAt: z.iso.datetime().optional().describe("Cron: when the next fire is due"),
  cronExpression: z.string().optional(),
  timezone: z.string().optional(),
  catchUp: z.enum(["once", "skip"]),
  status: z.enum(["pending", "running", "paused", "completed", "cancelled", "failed"]),
  runCount: z.number().int().describe("Fires that ran their handler to completion"),
  maxRuns: z.number().int().optional(),
  retryCount: z.number().int().describe("Failed attempts of the current fire so far"),
  maxRetries: z.number().int(),
  lastRunAt: z.iso.datetime().optional(),
  lastError: z.string().optional(),
  assistantId: z.string().optional(),
  threadId: z.string().optional(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
}).meta({ id: "Schedule" });

// Times leave the API as ISO strings; they are epoch milliseconds inside.
const isoTime = (ms: number) => new Date(ms).toISOString();
const optionalIsoTime = (ms: number | undefined) => (ms === undefined ? undefined : isoTime(ms));
const toView = ({ taskId, ...task }: ScheduledTaskDefinition): z.output<typeof scheduleView> => ({
  id: taskId,
  ...task,
  executeAt: optionalIsoTime(task.executeAt),
  nextRunAt: optionalIsoTime(task.nextRunAt),
  lastRunAt: optionalIsoTime(task.lastRunAt),
  createdAt: isoTime(task.createdAt),
  updatedAt: isoTime(task.updatedAt),
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
export const scheduleRoutes: FastifyPluginAsyncZod<ScheduleRoutesOptions> = async (app, { client, enqueueMessage }) => {
  if (enqueueMessage) client.registerHandler(AGENT_MESSAGE_TASK_TYPE, createAgentMessageHandler(enqueueMessage));

  app.post(
    "/api/schedules",
    {
      schema: {
        tags,
        summary: "Schedule a task: once (executeAt or delayMs) or recurring (cronExpression)",
        body: scheduleSchema,
        response: {
          201: scheduleView,
          ...apiErrors(...BODY_CODES, "INVALID_CRON", "INVALID_TIMEZONE", "INVALID_SCHEDULE", "EXECUTE_AT_IN_PAST", "UNKNOWN_TASK_TYPE", "ALREADY_EXISTS"),
        },
      },
    },
    async (request, reply) => {
      const { cronExpression, timezone, maxRuns, executeAt, delayMs, ...common } = request.body;
      // An agent message names its assistant and thread; the schedule is linked to both for lookups.
      const links: { assistantId?: string; threadId?: string } =
        common.taskType === AGENT_MESSAGE_TASK_TYPE ? parseInput(agentMessagePayloadSchema, common.payload, "payload") : {};
      const input = { ...common, tenantId: tenantOf(request), assistantId: links.assistantId, threadId: links.threadId };
      const task = await asBadRequest(
        cronExpression !== undefined ? client.scheduleCron({ ...input, cronExpression, timezone, maxRuns }) : client.scheduleOnce({ ...input, executeAt, delayMs }),
      );
      return reply.status(201).send(toView(task));
    },
  );

  app.get(
    "/api/schedules",
    { schema: { tags, summary: "List the tenant's schedules", response: { 200: z.object({ schedules: z.array(scheduleView) }), ...apiErrors() } } },
    async (request) => ({ schedules: (await client.list(tenantOf(request))).map(toView) }),
  );

  app.get("/api/schedules/:id", oneSchedule("Read a schedule"), async (request) => {
    const task = await client.get(request.params.id, tenantOf(request));
    if (!task) throw new HttpError("NOT_FOUND", `Schedule ${request.params.id} not found`);
    return toView(task);
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
    toView(await client.pause(request.params.id, tenantOf(request))),
  );

  app.post("/api/schedules/:id/resume", oneSchedule("Resume a paused schedule", "INVALID_SCHEDULE_STATE"), async (request) =>
    toView(await client.resume(request.params.id, tenantOf(request))),
  );
};
