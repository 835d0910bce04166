import {
  ScheduleExecutionType,
  ScheduledTaskStatus,
  type NewScheduledTask,
  type ScheduledRunSettlement,
  type ScheduledTaskUpdate,
} from "@axiom-lattice/protocols";
import { z } from "zod";
import { StoreArgumentError } from "../stores/storeArguments";
import { fieldRules as rules } from "../validation/fieldRules";
import { parseStoreArgument } from "../validation/parseStoreArgument";
import { CATCH_UP_POLICIES } from "./scheduleRequest";

// What a schedule store accepts, whoever writes: the integrity of a stored row (types, column ranges,
// a fire time for every task). Both stores call these, so they refuse alike. Whether a request makes a
// sensible schedule is judged before, in scheduleRequest.ts.

const executionType = z.enum(ScheduleExecutionType, { error: `must be one of ${Object.values(ScheduleExecutionType).join(", ")}` });
const status = z.enum(ScheduledTaskStatus, { error: `must be one of ${Object.values(ScheduledTaskStatus).join(", ")}` });
const counter = rules.integer(0);

// Every field a caller may write and what it must hold; `taskId` and `tenantId` only on save.
const FIELD_RULES = {
  taskId: rules.text,
  tenantId: rules.text,
  taskType: rules.text,
  payload: rules.jsonObject,
  executionType,
  executeAt: rules.epochMs,
  nextRunAt: rules.epochMs,
  cronExpression: rules.text,
  timezone: rules.text,
  catchUp: z.enum(CATCH_UP_POLICIES, { error: `must be one of ${CATCH_UP_POLICIES.join(", ")}` }),
  status,
  runCount: counter,
  maxRuns: rules.integer(1),
  retryCount: counter,
  maxRetries: counter,
  lastRunAt: rules.epochMs,
  lastError: rules.string,
  assistantId: rules.text,
  threadId: rules.text,
} satisfies Record<keyof NewScheduledTask, z.ZodType>;

const REQUIRED: (keyof NewScheduledTask)[] = [
  "taskId",
  "tenantId",
  "taskType",
  "payload",
  "executionType",
  "catchUp",
  "status",
  "runCount",
  "retryCount",
  "maxRetries",
];
const ALL_FIELDS = Object.keys(FIELD_RULES);
const UPDATABLE_FIELDS = ALL_FIELDS.filter((key) => key !== "taskId" && key !== "tenantId");
const SETTLEMENT_FIELDS = ["status", "runCount", "retryCount", "nextRunAt", "executeAt", "lastRunAt", "lastError"];
const SETTLED_STATUSES: string[] = [ScheduledTaskStatus.PENDING, ScheduledTaskStatus.COMPLETED, ScheduledTaskStatus.FAILED];

const fieldsSchema = z.object(FIELD_RULES, { error: "must be an object" }).partial();

function checkFields(fields: unknown, allowed: readonly string[]): void {
  // Unknown keys are refused, not dropped: a caller's typo must not pass as "no change".
  for (const key of Object.keys(parseStoreArgument(z.record(z.string(), z.unknown(), { error: "must be an object" }), fields, "Schedule fields"))) {
    if (!allowed.includes(key)) throw new StoreArgumentError(`Unknown or read-only schedule field "${key}"`);
  }
  parseStoreArgument(fieldsSchema, fields, "");
}

/** Checks a task handed to `save`; throws {@link StoreArgumentError}. */
export function validateNewScheduledTask(task: NewScheduledTask): void {
  checkFields(task, ALL_FIELDS);
  for (const key of REQUIRED) {
    if (task[key] === undefined) throw new StoreArgumentError(`Schedule field "${key}" is required`);
  }
  // A task must say when it fires.
  if (task.executionType === ScheduleExecutionType.ONCE && task.executeAt === undefined) {
    throw new StoreArgumentError('A one-shot schedule needs "executeAt"');
  }
  if (task.executionType === ScheduleExecutionType.CRON && (task.cronExpression === undefined || task.nextRunAt === undefined)) {
    throw new StoreArgumentError('A cron schedule needs "cronExpression" and "nextRunAt"');
  }
}

/** Checks the arguments of `update`. */
export function validateScheduledTaskUpdate(taskId: unknown, updates: ScheduledTaskUpdate): void {
  parseStoreArgument(rules.text, taskId, "taskId");
  checkFields(updates, UPDATABLE_FIELDS);
}

const settlementTarget = z.object({ taskId: rules.text, firedAt: rules.epochMs });
const claimTarget = z.object({ taskId: rules.text, expectedRunAt: rules.epochMs.optional() });

/** Checks the arguments of `settleScheduledRun`. */
export function validateSettlement(taskId: unknown, firedAt: unknown, settlement: ScheduledRunSettlement): void {
  parseStoreArgument(settlementTarget, { taskId, firedAt }, "");
  checkFields(settlement, SETTLEMENT_FIELDS);
  if (!SETTLED_STATUSES.includes(settlement.status)) {
    throw new StoreArgumentError(`A run settles to ${SETTLED_STATUSES.join(", ")}, not ${String(settlement.status)}`);
  }
  if (settlement.runCount === undefined || settlement.retryCount === undefined) {
    throw new StoreArgumentError('A settlement needs "runCount" and "retryCount"');
  }
}

/** Checks the arguments of `claimScheduledRun`. */
export function validateClaim(taskId: unknown, expectedRunAt: unknown): void {
  parseStoreArgument(claimTarget, { taskId, expectedRunAt }, "");
}

/** A tenant filter, when given. */
export function validateTenantFilter(tenantId: unknown): void {
  parseStoreArgument(rules.text.optional(), tenantId, "tenantId");
}

export function validateStatus(value: unknown): void {
  parseStoreArgument(status, value, "status");
}

/** An age threshold in milliseconds (0 or more). */
export function validateAgeThreshold(olderThanMs: unknown): asserts olderThanMs is number {
  parseStoreArgument(rules.nonNegativeNumber, olderThanMs, "olderThanMs");
}
