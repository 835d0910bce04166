import { randomUUID } from "node:crypto";
import {
  type CreateTaskRequest,
  type LeaseFence,
  type TaskItem,
  type TaskListFilter,
  type TaskMutationSnapshot,
  type TaskScanRequest,
  TaskStatus,
  type TaskOwnerType,
  type TaskWriteOptions,
  type UpdateTaskRequest,
} from "@axiom-lattice/protocols";
import { isLeaseToken } from "../coordination/leaseArguments";
import { validateFence } from "../coordination/leaseFence";
import { MAX_TASK_ID_LENGTH, TASK_LIST_MAX } from "../defaults";
import { StoreArgumentError, optionalString, requireBoundedJson, requireInteger, requireObject, requireTenantId, requireText } from "../stores/storeArguments";

// Checks shared by every TaskStore, so bad input is refused alike and before any write. Only known
// keys are kept, and JSON values are kept as their JSON round trip, so an in-memory store returns
// what a database would.

/** The fields a task's writer sets (everything but its key, fencing token and timestamps). */
export type TaskFields = Omit<TaskItem, "id" | "tenantId" | "fencingToken" | "createdAt" | "updatedAt">;

export type ValidTask = TaskFields & { id: string };

const STATUSES = new Set<string>(Object.values(TaskStatus));
const OWNER_TYPES = new Set<string>(["user", "agent"] satisfies TaskOwnerType[]);

/** A task id, or an id a task refers to. */
export function requireTaskId(value: unknown, what = "Task id"): string {
  const id = requireText(value, what);
  if (id.length > MAX_TASK_ID_LENGTH) throw new StoreArgumentError(`${what} must be at most ${MAX_TASK_ID_LENGTH} characters`);
  return id;
}

function optionalTaskId(value: unknown, what: string): string | undefined {
  return value === undefined ? undefined : requireTaskId(value, what);
}

export function requireTaskStatus(value: unknown): TaskStatus {
  if (typeof value !== "string" || !STATUSES.has(value)) {
    throw new StoreArgumentError(`Task status must be one of ${[...STATUSES].join(", ")}, got ${String(value)}`);
  }
  return value as TaskStatus;
}

export function requireTaskStatuses(value: unknown): TaskStatus[] {
  if (!Array.isArray(value)) throw new StoreArgumentError("Task statuses must be an array");
  return value.map(requireTaskStatus);
}

function requireOwnerType(value: unknown): TaskOwnerType {
  if (typeof value !== "string" || !OWNER_TYPES.has(value)) throw new StoreArgumentError(`Task ownerType must be "user" or "agent", got ${String(value)}`);
  return value as TaskOwnerType;
}

function requireDate(value: unknown, what: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new StoreArgumentError(`${what} must be a valid Date`);
  return new Date(value.getTime());
}

function requireBoolean(value: unknown, what: string): boolean {
  if (typeof value !== "boolean") throw new StoreArgumentError(`${what} must be a boolean`);
  return value;
}

/** A JSON value as a database would return it. */
function boundedJsonValue(value: unknown, what: string): unknown {
  return JSON.parse(requireBoundedJson(value, what));
}

function boundedJsonObject(value: unknown, what: string): Record<string, unknown> {
  return boundedJsonValue(requireObject(value, what), what) as Record<string, unknown>;
}

function requireDependencies(value: unknown): string[] {
  if (!Array.isArray(value)) throw new StoreArgumentError("Task dependencies must be an array of task ids");
  return value.map((id) => requireTaskId(id, "Task dependency"));
}

/** Each known field present in `input` (and not `undefined`), checked. */
function validateFields(input: Record<string, unknown>): Partial<TaskFields> {
  const fields: Partial<TaskFields> = {};
  const checks: { [K in keyof TaskFields]-?: (value: unknown) => TaskFields[K] } = {
    ownerType: requireOwnerType,
    ownerId: (value) => requireTaskId(value, "Task ownerId"),
    title: (value) => requireText(value, "Task title"),
    description: (value) => optionalString(value, "Task description"),
    status: requireTaskStatus,
    priority: (value) => requireInteger(value, "Task priority"),
    dueDate: (value) => requireDate(value, "Task dueDate"),
    metadata: (value) => boundedJsonObject(value, "Task metadata"),
    parentId: (value) => optionalTaskId(value, "Task parentId"),
    sourceId: (value) => optionalTaskId(value, "Task sourceId"),
    context: (value) => boundedJsonObject(value, "Task context"),
    requireReview: (value) => requireBoolean(value, "Task requireReview"),
    dependencies: requireDependencies,
    result: (value) => boundedJsonValue(value, "Task result"),
    failureReason: (value) => optionalString(value, "Task failureReason"),
    workspaceId: (value) => optionalTaskId(value, "Task workspaceId"),
    projectId: (value) => optionalTaskId(value, "Task projectId"),
  };
  for (const key of Object.keys(checks) as (keyof TaskFields)[]) {
    if (input[key] !== undefined) (fields as Record<string, unknown>)[key] = checks[key](input[key]);
  }
  return fields;
}

export function validateCreateTask(request: CreateTaskRequest): ValidTask {
  const checked = requireObject(request, "Task");
  const fields = validateFields(checked);
  return {
    ...fields,
    id: checked.id === undefined ? randomUUID() : requireTaskId(checked.id),
    ownerType: requireOwnerType(checked.ownerType),
    ownerId: requireTaskId(checked.ownerId, "Task ownerId"),
    title: requireText(checked.title, "Task title"),
    status: fields.status ?? TaskStatus.PENDING,
    priority: fields.priority ?? 0,
  };
}

export function validateUpdateTask(request: UpdateTaskRequest): Partial<TaskFields> {
  return validateFields(requireObject(request, "Task update"));
}

export function validateSnapshot(snapshot: TaskMutationSnapshot): TaskMutationSnapshot {
  const checked = requireObject(snapshot, "Task snapshot");
  return { status: requireTaskStatus(checked.status), updatedAt: requireDate(checked.updatedAt, "Task snapshot updatedAt") };
}

/** The fencing token and the lease fence of `options`, each if any. */
export function validateWriteOptions(options: TaskWriteOptions | undefined): { fencingToken?: string; fence?: LeaseFence } {
  if (options === undefined) return {};
  const { fencingToken } = requireObject(options, "Task write options");
  const fence = validateFence(options);
  if (fencingToken !== undefined && !isLeaseToken(fencingToken)) {
    throw new StoreArgumentError(`Task fencingToken must be a lease token (a non-negative integer as a decimal string), got ${String(fencingToken)}`);
  }
  return { ...(fencingToken === undefined ? {} : { fencingToken }), ...(fence ? { fence } : {}) };
}

/** A list filter with every field it names checked. */
export function validateListFilter(filter: TaskListFilter | undefined): TaskListFilter {
  const checked = requireObject(filter ?? {}, "Task filter");
  return {
    ...(checked.status === undefined ? {} : { status: requireTaskStatuses(checked.status) }),
    ...(checked.ownerType === undefined ? {} : { ownerType: requireOwnerType(checked.ownerType) }),
    ...(checked.ownerId === undefined ? {} : { ownerId: requireTaskId(checked.ownerId, "Task ownerId") }),
    ...(checked.projectId === undefined ? {} : { projectId: requireTaskId(checked.projectId, "Task projectId") }),
    ...(checked.workspaceId === undefined ? {} : { workspaceId: requireTaskId(checked.workspaceId, "Task workspaceId") }),
    ...(checked.parentId === undefined ? {} : { parentId: requireTaskId(checked.parentId, "Task parentId") }),
  };
}

/** A scan page: its statuses, its size and, when resuming, the (valid) task it resumes after. */
export function validateScanRequest(request: TaskScanRequest): TaskScanRequest {
  const checked = requireObject(request, "Task scan");
  const valid: TaskScanRequest = {
    statuses: requireTaskStatuses(checked.statuses),
    limit: requireInteger(checked.limit, "Task scan limit", 0, TASK_LIST_MAX),
  };
  if (checked.after !== undefined) {
    const after = requireObject(checked.after, "Task scan cursor");
    valid.after = { tenantId: requireTenantId(after.tenantId), id: requireTaskId(after.id, "Task scan cursor id") };
  }
  return valid;
}
