import { type DefaultScheduleClient, ScheduleRequestError, scheduleFieldRules as rules } from "@axiom-lattice/core";
import type { ScheduledTaskDefinition } from "@axiom-lattice/protocols";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { HttpError } from "../http/errors";
import { tenantOf } from "../auth/authentication";
import { parseInput } from "../http/validation";
import { AGENT_MESSAGE_TASK_TYPE, type EnqueueAgentMessage, agentMessagePayloadSchema, createAgentMessageHandler } from "../schedules/agentMessageHandler";
import { idParams } from "./ids";

export interface ScheduleRoutesOptions {
  client: DefaultScheduleClient;
  /** Registers the `agent-message` handler with this enqueue (the runtime's client has its own). */
  enqueueMessage?: EnqueueAgentMessage;
}

// The body as JSON. What each value must be comes from core's `scheduleFieldRules` (the client checks
// the rest: task type, timing, cron, time zone); the API adds only its own narrowing: ISO-8601 or
// whole-millisecond times, a task-type alphabet, length bounds, at most 20 retries, no unknown fields.
const common = {
  taskType: z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/, "must be 1-64 characters of A-Z a-z 0-9 . _ : -"),
  payload: rules.payload.optional(),
  maxRetries: rules.maxRetries.max(20).optional(),
  catchUp: rules.catchUp.optional(),
};

const onceSchema = z.strictObject({
  ...common,
  executeAt: z
    .union([z.iso.datetime({ offset: true }), rules.executeAt.int().min(0)])
    .transform((at) => (typeof at === "string" ? Date.parse(at) : at))
    .optional(),
  delayMs: rules.delayMs.int().optional(),
});

const cronSchema = z.strictObject({
  ...common,
  cronExpression: z.string().min(1).max(128),
  timezone: z.string().min(1).max(64).optional(),
  maxRuns: rules.maxRuns.optional(),
});

// Times leave the API as ISO strings; they are epoch milliseconds inside.
const TIME_FIELDS = ["executeAt", "nextRunAt", "lastRunAt", "createdAt", "updatedAt"] as const;
const toView = (task: ScheduledTaskDefinition) => ({
  ...task,
  ...Object.fromEntries(TIME_FIELDS.flatMap((field) => (task[field] === undefined ? [] : [[field, new Date(task[field]).toISOString()]]))),
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

/**
 * `/api/schedules`: create (one-shot or cron), list, read, cancel, pause and resume schedules of the
 * request's tenant.
 */
export function registerScheduleRoutes(app: FastifyInstance, { client, enqueueMessage }: ScheduleRoutesOptions): void {
  if (enqueueMessage) client.registerHandler(AGENT_MESSAGE_TASK_TYPE, createAgentMessageHandler(enqueueMessage));

  app.post("/api/schedules", async (request, reply) => {
    const tenantId = tenantOf(request);
    const isCron = typeof request.body === "object" && request.body !== null && "cronExpression" in request.body;
    const body = parseInput(isCron ? cronSchema : onceSchema, request.body);
    // An agent message names its assistant and thread; the schedule is linked to both for lookups.
    const links: { assistantId?: string; threadId?: string } =
      body.taskType === AGENT_MESSAGE_TASK_TYPE ? parseInput(agentMessagePayloadSchema, body.payload, "payload") : {};
    const input = { ...body, tenantId, assistantId: links.assistantId, threadId: links.threadId };
    const task = await asBadRequest("cronExpression" in input ? client.scheduleCron(input) : client.scheduleOnce(input));
    return reply.status(201).send(toView(task));
  });

  app.get("/api/schedules", async (request) => {
    const tasks = await client.list(tenantOf(request));
    return { schedules: tasks.map(toView) };
  });

  app.get("/api/schedules/:id", async (request) => {
    const { id } = parseInput(idParams, request.params, "path");
    const task = await client.get(id, tenantOf(request));
    if (!task) throw new HttpError("NOT_FOUND", `Schedule ${id} not found`);
    return toView(task);
  });

  app.delete("/api/schedules/:id", async (request) => {
    const { id } = parseInput(idParams, request.params, "path");
    return toView(await client.cancel(id, tenantOf(request)));
  });

  app.post("/api/schedules/:id/pause", async (request) => {
    const { id } = parseInput(idParams, request.params, "path");
    return toView(await client.pause(id, tenantOf(request)));
  });

  app.post("/api/schedules/:id/resume", async (request) => {
    const { id } = parseInput(idParams, request.params, "path");
    return toView(await client.resume(id, tenantOf(request)));
  });
}
