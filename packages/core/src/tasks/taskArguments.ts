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
import { z } from "zod";
import { StoreArgumentError, requireObject } from "../stores/storeArguments";
import { fieldRules as rules } from "../validation/fieldRules";
import { definedFields, parseStoreArgument } from "../validation/parseStoreArgument";

// Checks shared by every TaskStore, so bad input is refused alike and before any write. Only known
// keys are kept, and JSON values are kept as their JSON round trip, so an in-memory store returns
// what a database would.

/** The fields a task's writer sets (everything but its key, fencing token and timestamps). */
export type TaskFields = Omit<TaskItem, "id" | "tenantId" | "fencingToken" | "createdAt" | "updatedAt">;

export type ValidTask = TaskFields & { id: string };

const STATUS_LIST = Object.values(TaskStatus);
const OWNER_TYPES = ["user", "agent"] as const satisfies readonly TaskOwnerType[];

/** A task id, or an id a task refers to. */
const taskId = rules.text.max(MAX_TASK_ID_LENGTH, `must be at most ${MAX_TASK_ID_LENGTH} characters`);
const status = z.enum(TaskStatus, { error: `must be one of ${STATUS_LIST.join(", ")}` });
const statuses = z.array(status, { error: "must be an array of task statuses" });
const ownerType = z.enum(OWNER_TYPES, { error: 'must be "user" or "agent"' });
// A copy, so a store never shares the caller's Date.
const date = rules.date.transform((value) => new Date(value.getTime()));

export const requireTaskId = (value: unknown, what = "Task id"): string => parseStoreArgument(taskId, value, what);
export const requireTaskStatus = (value: unknown): TaskStatus => parseStoreArgument(status, value, "Task status");
export const requireTaskStatuses = (value: unknown): TaskStatus[] => parseStoreArgument(statuses, value, "Task statuses");

/** Every field a task's writer sets, each optional: absent (or `undefined`) leaves it as it is. */
const fields = z
  .object(
    {
      ownerType,
      ownerId: taskId,
      title: rules.text,
      description: rules.string,
      status,
      priority: rules.priority,
      dueDate: date,
      metadata: rules.storedJsonObject,
      parentId: taskId,
      sourceId: taskId,
      context: rules.storedJsonObject,
      requireReview: rules.boolean,
      dependencies: z.array(taskId, { error: "must be an array of task ids" }),
      result: rules.storedJsonValue,
      failureReason: rules.string,
      workspaceId: taskId,
      projectId: taskId,
    } satisfies { [K in keyof TaskFields]-?: z.ZodType },
    { error: "must be an object" },
  )
  .partial();

const createSchema = fields.required({ ownerType: true, ownerId: true, title: true }).extend({
  id: taskId.default(() => randomUUID()),
  status: status.default(TaskStatus.PENDING),
  priority: rules.priority.default(0),
});

export const validateCreateTask = (request: CreateTaskRequest): ValidTask => definedFields(parseStoreArgument(createSchema, request, "Task")) as ValidTask;

export const validateUpdateTask = (request: UpdateTaskRequest): Partial<TaskFields> => definedFields(parseStoreArgument(fields, request, "Task update")) as Partial<TaskFields>;

const snapshot = z.object({ status, updatedAt: date }, { error: "must be an object" });

export const validateSnapshot = (value: TaskMutationSnapshot): TaskMutationSnapshot => parseStoreArgument(snapshot, value, "Task snapshot");

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

const listFilter = z
  .object({ status: statuses, ownerType, ownerId: taskId, projectId: taskId, workspaceId: taskId, parentId: taskId }, { error: "must be an object" })
  .partial();

/** A list filter with every field it names checked. */
export const validateListFilter = (filter: TaskListFilter | undefined): TaskListFilter => definedFields(parseStoreArgument(listFilter, filter ?? {}, "Task filter"));

const scanRequest = z.object(
  {
    statuses,
    limit: rules.integer(0, TASK_LIST_MAX),
    after: z.object({ tenantId: rules.text, id: taskId }, { error: "must be an object" }).optional(),
  },
  { error: "must be an object" },
);

/** A scan page: its statuses, its size and, when resuming, the (valid) task it resumes after. */
export const validateScanRequest = (request: TaskScanRequest): TaskScanRequest => definedFields(parseStoreArgument(scanRequest, request, "Task scan"));
