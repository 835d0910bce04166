import { randomUUID } from "node:crypto";
import {
  ScheduleExecutionType,
  ScheduledTaskStatus,
  type NewScheduledTask,
  type ScheduleCatchUpPolicy,
  type ScheduledTaskDefinition,
  type ScheduledTaskUpdate,
} from "@axiom-lattice/protocols";
import { z } from "zod";
import { fieldRules } from "../validation/fieldRules";
import { DEFAULT_TIMEZONE, parseCron } from "./cronSchedule";
import { ScheduleRequestError } from "./scheduleErrors";
import { SCHEDULE_MAX_RETRIES, SCHEDULE_PAST_TOLERANCE_MS } from "../defaults";

interface CommonScheduleInput {
  taskType: string;
  payload?: Record<string, unknown>;
  /** Defaults to `"default"`. */
  tenantId?: string;
  /** Defaults to a random UUID. */
  taskId?: string;
  /** Retries of a failed fire before the schedule fails (default 3). */
  maxRetries?: number;
  /** Fires missed while no replica ran: run them once (default) or skip them. */
  catchUp?: ScheduleCatchUpPolicy;
  assistantId?: string;
  threadId?: string;
}

export interface ScheduleOnceInput extends CommonScheduleInput {
  /** When to fire (epoch ms or Date); give this or `delayMs`. */
  executeAt?: number | Date;
  delayMs?: number;
}

export interface ScheduleCronInput extends CommonScheduleInput {
  cronExpression: string;
  /** IANA time zone the expression is read in (default `"UTC"`). */
  timezone?: string;
  /** Complete after this many runs. */
  maxRuns?: number;
}

/** What a request is judged against besides itself. */
export interface ScheduleRequestContext {
  /** Epoch ms: a delay counts from it, and a cron schedule's first fire comes after it. */
  now: number;
  /** Whether fires of this task type have a handler. */
  isKnownTaskType: (taskType: string) => boolean;
}

const SCHEDULE_MAX_DELAY_MS = 100 * 365 * 24 * 60 * 60 * 1000;

export const CATCH_UP_POLICIES = ["once", "skip"] as const satisfies readonly ScheduleCatchUpPolicy[];

/**
 * The rule each value of a schedule request must meet, stated once: every request to the client is
 * checked against them, and the HTTP route builds its body schema from them (narrowed to what the
 * API accepts), so both refuse a bad value alike.
 */
export const scheduleFieldRules = {
  payload: fieldRules.jsonObject,
  /** Epoch ms, as a store keeps it. */
  executeAt: fieldRules.epochMs,
  /** Up to a hundred years: the fire time it makes stays a time a store keeps. */
  delayMs: z.number().min(0).max(SCHEDULE_MAX_DELAY_MS),
  maxRuns: fieldRules.integer(1),
  maxRetries: fieldRules.integer(0),
  catchUp: z.enum(CATCH_UP_POLICIES),
};

const DEFAULT_TENANT = "default";

const rules = scheduleFieldRules;
const commonFields = { payload: rules.payload.optional(), maxRetries: rules.maxRetries.optional(), catchUp: rules.catchUp.optional() };
const onceFields = z.object({ ...commonFields, executeAt: rules.executeAt.optional(), delayMs: rules.delayMs.optional() });
const cronFields = z.object({ ...commonFields, maxRuns: rules.maxRuns.optional() });

/**
 * The one-shot task `input` asks for. Throws {@link ScheduleRequestError} (nothing is stored) for a
 * value that breaks its rule, an unknown task type, not exactly one of `executeAt` and `delayMs`, or
 * an `executeAt` more than {@link SCHEDULE_PAST_TOLERANCE_MS} in the past, whatever the catch-up
 * policy: a time already gone is almost always a mistake (a wrong time zone or unit), and firing it
 * at once would hide it; `delayMs: 0` asks for "now".
 */
export function parseScheduleOnceInput(input: ScheduleOnceInput, context: ScheduleRequestContext): NewScheduledTask {
  const fields = checkFields(onceFields, { ...input, executeAt: input.executeAt instanceof Date ? input.executeAt.getTime() : input.executeAt });
  requireKnownTaskType(input.taskType, context);
  const task = { ...newTask(input, fields), executionType: ScheduleExecutionType.ONCE, executeAt: fireAt(fields, context.now) };
  if (task.executeAt < context.now - SCHEDULE_PAST_TOLERANCE_MS) {
    throw new ScheduleRequestError(
      "EXECUTE_AT_IN_PAST",
      // Worded without field names: the HTTP API spells them its own way.
      `The fire time ${new Date(task.executeAt).toISOString()} is ${Math.round((context.now - task.executeAt) / 1_000)} s in the past (it is now ${new Date(context.now).toISOString()}); a delay of 0 fires now`,
    );
  }
  return task;
}

/**
 * The cron task `input` asks for, first firing after `context.now`. Throws {@link ScheduleRequestError}
 * (nothing is stored) for a value that breaks its rule, an unknown task type, an unknown time zone,
 * or an expression that is invalid or never fires.
 */
export function parseScheduleCronInput(input: ScheduleCronInput, context: ScheduleRequestContext): NewScheduledTask {
  const fields = checkFields(cronFields, input);
  requireKnownTaskType(input.taskType, context);
  const timezone = input.timezone ?? DEFAULT_TIMEZONE;
  const nextRunAt = parseCron(input.cronExpression, timezone).nextAfter(context.now);
  if (nextRunAt === undefined) {
    throw new ScheduleRequestError("INVALID_CRON", `Cron expression "${input.cronExpression}" never fires`);
  }
  return {
    ...newTask(input, fields),
    executionType: ScheduleExecutionType.CRON,
    cronExpression: input.cronExpression,
    timezone,
    nextRunAt,
    maxRuns: fields.maxRuns,
  };
}

/** A change of a cron schedule (`DefaultScheduleClient.changeCron`). */
export interface CronScheduleChange {
  payload?: Record<string, unknown>;
  cronExpression?: string;
  /** false: stop firing (paused); true: fire again (a paused schedule resumes). */
  active?: boolean;
}

const changeFields = z.object({ payload: rules.payload.optional() });

/**
 * The update that makes `task` (a cron schedule, not finished) what `change` asks. A new expression,
 * or resuming, moves the next fire to the first after `context.now`; a fire in progress keeps its time
 * (its settlement moves on). Throws {@link ScheduleRequestError} for a bad payload or an expression
 * that is invalid or never fires again.
 */
export function parseCronChange(task: ScheduledTaskDefinition, change: CronScheduleChange, context: Pick<ScheduleRequestContext, "now">): ScheduledTaskUpdate {
  const { payload } = checkFields(changeFields, change);
  const cronExpression = change.cronExpression ?? task.cronExpression ?? "";
  const nextRunAt = parseCron(cronExpression, task.timezone ?? DEFAULT_TIMEZONE).nextAfter(context.now);
  if (nextRunAt === undefined) throw new ScheduleRequestError("INVALID_CRON", `Cron expression "${cronExpression}" never fires`);
  const resumes = change.active === true && task.status === ScheduledTaskStatus.PAUSED;
  const pauses = change.active === false && task.status !== ScheduledTaskStatus.PAUSED;
  const moves = task.status !== ScheduledTaskStatus.RUNNING && (resumes || change.cronExpression !== undefined);
  return {
    ...(payload ? { payload } : {}),
    ...(change.cronExpression !== undefined ? { cronExpression } : {}),
    ...(moves ? { nextRunAt, retryCount: 0 } : {}),
    ...(pauses ? { status: ScheduledTaskStatus.PAUSED } : resumes ? { status: ScheduledTaskStatus.PENDING } : {}),
  };
}

function checkFields<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ScheduleRequestError("INVALID_SCHEDULE", `Invalid schedule: ${issue.path.join(".") || "input"}: ${issue.message}`);
}

function requireKnownTaskType(taskType: string, { isKnownTaskType }: ScheduleRequestContext): void {
  if (!isKnownTaskType(taskType)) {
    throw new ScheduleRequestError("UNKNOWN_TASK_TYPE", `Unknown task type "${taskType}"`);
  }
}

function fireAt({ executeAt, delayMs }: { executeAt?: number; delayMs?: number }, now: number): number {
  if (executeAt !== undefined && delayMs === undefined) return executeAt;
  if (delayMs !== undefined && executeAt === undefined) return now + delayMs;
  throw new ScheduleRequestError("INVALID_SCHEDULE", "Give exactly one of executeAt and delayMs");
}

/** The fields every new schedule starts with. */
function newTask(input: CommonScheduleInput, fields: z.output<typeof cronFields | typeof onceFields>) {
  return {
    taskId: input.taskId ?? randomUUID(),
    tenantId: input.tenantId ?? DEFAULT_TENANT,
    taskType: input.taskType,
    payload: fields.payload ?? {},
    catchUp: fields.catchUp ?? "once",
    status: ScheduledTaskStatus.PENDING,
    runCount: 0,
    retryCount: 0,
    maxRetries: fields.maxRetries ?? SCHEDULE_MAX_RETRIES,
    assistantId: input.assistantId,
    threadId: input.threadId,
  };
}
