import {
  EXECUTION_REQUESTED_AT_KEY,
  RECOVERED_BY_KEY,
  RESUMED_AT_KEY,
  RESUME_VALUE_KEY,
  TASK_CALLER_KEY,
  TASK_RUN_KEY,
  taskOutcomeOf,
} from "@axiom-lattice/agent";
import { TaskStatus, type TaskItem, type TaskLifecycleEvent } from "@axiom-lattice/protocols";
import { z } from "zod";

// The wire shapes of tasks under `/api/tasks`: snake_case views of the store's camelCase tasks. Free-form
// JSON (`metadata`, `result`, the resume value in `context`) is shown as stored, never re-cased.

const STATUSES = Object.values(TaskStatus) as [TaskStatus, ...TaskStatus[]];
export const statusSchema = z.enum(STATUSES);

/** `{ [key]: value }`, or nothing when `value` is absent: an absent field is left out of a view, not `null`. */
const entry = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as { [P in K]: V }));

/** A thread the runtime recorded in a task's `context`: where it runs, or who waits for it. */
const contextPlaceView = z.object({
  assistant_id: z.string(),
  thread_id: z.string(),
  task_id: z.string().optional().describe("The caller's task, when the caller is a task's run"),
  message_id: z.string().optional().describe("That task's run waiting for the outcome"),
});

const contextView = z
  .object({
    [TASK_RUN_KEY]: contextPlaceView.optional().describe("The thread the task runs on, once started"),
    [TASK_CALLER_KEY]: contextPlaceView.optional().describe("The waiting caller of a delegated task"),
    [EXECUTION_REQUESTED_AT_KEY]: z.string().optional().describe("When the task was last dispatched"),
    [RESUMED_AT_KEY]: z.string().optional().describe("When its interrupted run was last resumed"),
    [RESUME_VALUE_KEY]: z.unknown().optional().describe("The JSON that resume answered, as given"),
    [RECOVERED_BY_KEY]: z.string().optional().describe("Who failed the task as orphaned (its run died with its replica)"),
  })
  .catchall(z.unknown())
  .describe("Written by the task runtime only (where the task runs, who waits for it)");

export const taskView = z.object({
  id: z.string(),
  tenant_id: z.string(),
  owner_type: z.enum(["user", "agent"]),
  owner_id: z.string(),
  title: z.string(),
  description: z.string().optional(),
  status: statusSchema,
  priority: z.number().int(),
  due_date: z.date().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  parent_id: z.string().optional(),
  source_id: z.string().optional(),
  context: contextView.optional(),
  require_review: z.boolean().optional(),
  dependencies: z.array(z.string()).optional(),
  result: z.unknown().optional().describe("The task's outcome as its run produced it"),
  failure_reason: z.string().optional(),
  workspace_id: z.string().optional(),
  project_id: z.string().optional(),
  created_at: z.date(),
  updated_at: z.date(),
}).meta({ id: "Task" });

export const outcomeView = z.object({
  task_id: z.string(),
  status: statusSchema,
  result: z.unknown().optional(),
  failure_reason: z.string().optional(),
}).meta({ id: "TaskOutcome" });

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The runtime's record of a thread (camelCase in the store, see the agent's taskRunPlace) as clients read it. */
function toContextPlaceView(place: unknown): unknown {
  if (!isRecord(place)) return place;
  const { assistantId, threadId, taskId, messageId } = place;
  return { assistant_id: assistantId, thread_id: threadId, ...entry("task_id", taskId), ...entry("message_id", messageId) };
}

/** A task's `context`: its thread records shown snake_case; every other entry (stamps, the resume value) as stored. */
function toContextView(context: Record<string, unknown>): Record<string, unknown> {
  const view = { ...context };
  for (const key of [TASK_RUN_KEY, TASK_CALLER_KEY]) if (key in view) view[key] = toContextPlaceView(view[key]);
  return view;
}

/** A task as clients read it. The fencing token is the runtime's bookkeeping, not part of it. */
export function toTaskView(task: TaskItem): z.input<typeof taskView> {
  return {
    id: task.id,
    tenant_id: task.tenantId,
    owner_type: task.ownerType,
    owner_id: task.ownerId,
    title: task.title,
    ...entry("description", task.description),
    status: task.status,
    priority: task.priority,
    ...entry("due_date", task.dueDate),
    ...entry("metadata", task.metadata),
    ...entry("parent_id", task.parentId),
    ...entry("source_id", task.sourceId),
    ...entry("context", task.context && toContextView(task.context)),
    ...entry("require_review", task.requireReview),
    ...entry("dependencies", task.dependencies),
    ...entry("result", task.result),
    ...entry("failure_reason", task.failureReason),
    ...entry("workspace_id", task.workspaceId),
    ...entry("project_id", task.projectId),
    created_at: task.createdAt,
    updated_at: task.updatedAt,
  };
}

export function toOutcomeView(task: TaskItem): z.input<typeof outcomeView> {
  const { taskId, status, result, failureReason } = taskOutcomeOf(task);
  return { task_id: taskId, status, ...entry("result", result), ...entry("failure_reason", failureReason) };
}

/** The `data` of a `task_lifecycle` event on `GET /api/tasks/events`. */
export interface TaskLifecycleView {
  tenant_id: string;
  task_id: string;
  status: TaskStatus;
  updated_at: string;
  owner_id?: string;
  project_id?: string;
  workspace_id?: string;
  failure_reason?: string;
}

export function toTaskLifecycleView(event: TaskLifecycleEvent): TaskLifecycleView {
  return {
    tenant_id: event.tenantId,
    task_id: event.taskId,
    status: event.status,
    updated_at: event.updatedAt,
    ...entry("owner_id", event.ownerId),
    ...entry("project_id", event.projectId),
    ...entry("workspace_id", event.workspaceId),
    ...entry("failure_reason", event.failureReason),
  };
}
