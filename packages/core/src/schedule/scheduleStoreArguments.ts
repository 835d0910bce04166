import {
  ScheduleExecutionType,
  ScheduledTaskStatus,
  type NewScheduledTask,
  type ScheduledRunSettlement,
  type ScheduledTaskUpdate,
} from "@axiom-lattice/protocols";
import { StoreArgumentError, optionalString, requireBoundedJson, requireInteger, requireObject, requireText } from "../stores/storeArguments";
import { CATCH_UP_POLICIES } from "./scheduleRequest";

// What a schedule store accepts, whoever writes: the integrity of a stored row (types, column ranges,
// a fire time for every task). Both stores call these, so they refuse alike. Whether a request makes a
// sensible schedule is judged before, in scheduleRequest.ts.

type Check = (value: unknown, what: string) => void;

// The range of a JavaScript Date; PostgreSQL timestamptz covers it.
const MAX_EPOCH_MS = 8.64e15;
const MAX_INT = 2_147_483_647;

// Whole milliseconds: what a Date (and so a timestamptz read back) holds exactly.
const time: Check = (value, what) => {
  if (!Number.isSafeInteger(value) || Math.abs(value as number) > MAX_EPOCH_MS) {
    throw new StoreArgumentError(`${what} must be whole epoch milliseconds, got ${String(value)}`);
  }
};
const oneOf =
  (values: object): Check =>
  (value, what) => {
    if (!Object.values(values).includes(value)) throw new StoreArgumentError(`${what} must be one of ${Object.values(values).join(", ")}`);
  };
const counter: Check = (value, what) => requireInteger(value, what, 0, MAX_INT);

// Every field a caller may write and what it must hold; `taskId` and `tenantId` only on save.
const FIELD_CHECKS: Record<keyof NewScheduledTask, Check> = {
  taskId: requireText,
  tenantId: requireText,
  taskType: requireText,
  payload: (value, what) => requireBoundedJson(requireObject(value, what), what),
  executionType: oneOf(ScheduleExecutionType),
  executeAt: time,
  nextRunAt: time,
  cronExpression: requireText,
  timezone: requireText,
  catchUp: oneOf(CATCH_UP_POLICIES),
  status: oneOf(ScheduledTaskStatus),
  runCount: counter,
  maxRuns: (value, what) => requireInteger(value, what, 1, MAX_INT),
  retryCount: counter,
  maxRetries: counter,
  lastRunAt: time,
  lastError: optionalString,
  assistantId: requireText,
  threadId: requireText,
};

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
const ALL_FIELDS = Object.keys(FIELD_CHECKS);
const UPDATABLE_FIELDS = ALL_FIELDS.filter((key) => key !== "taskId" && key !== "tenantId");
const SETTLEMENT_FIELDS = ["status", "runCount", "retryCount", "nextRunAt", "executeAt", "lastRunAt", "lastError"];
const SETTLED_STATUSES: string[] = [ScheduledTaskStatus.PENDING, ScheduledTaskStatus.COMPLETED, ScheduledTaskStatus.FAILED];

function checkFields(fields: unknown, allowed: readonly string[]): void {
  for (const [key, value] of Object.entries(requireObject(fields, "schedule fields"))) {
    if (!allowed.includes(key)) throw new StoreArgumentError(`Unknown or read-only schedule field "${key}"`);
    if (value !== undefined) FIELD_CHECKS[key as keyof NewScheduledTask](value, key);
  }
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
  requireText(taskId, "taskId");
  checkFields(updates, UPDATABLE_FIELDS);
}

/** Checks the arguments of `settleScheduledRun`. */
export function validateSettlement(taskId: unknown, firedAt: unknown, settlement: ScheduledRunSettlement): void {
  requireText(taskId, "taskId");
  time(firedAt, "firedAt");
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
  requireText(taskId, "taskId");
  if (expectedRunAt !== undefined) time(expectedRunAt, "expectedRunAt");
}

/** A tenant filter, when given. */
export function validateTenantFilter(tenantId: unknown): void {
  if (tenantId !== undefined) requireText(tenantId, "tenantId");
}

export function validateStatus(status: unknown): void {
  FIELD_CHECKS.status(status, "status");
}

/** An age threshold in milliseconds (0 or more). */
export function validateAgeThreshold(olderThanMs: unknown): asserts olderThanMs is number {
  if (typeof olderThanMs !== "number" || !Number.isFinite(olderThanMs) || olderThanMs < 0) {
    throw new StoreArgumentError(`olderThanMs must be a finite number ≥ 0, got ${String(olderThanMs)}`);
  }
}
