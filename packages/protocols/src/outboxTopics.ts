import type { TaskStatus } from "./stores/task";

// Topics replicas exchange through the outbox (see the design's topic table). A peer ignores a
// topic it has no handler for, so adding one never breaks older replicas.

/** Payload {@link TaskLifecycleEvent}: local lifecycle listeners on every peer. */
export const TASK_LIFECYCLE_TOPIC = "task-lifecycle";
/** Payload {@link ProjectTaskAdmissionEvent}: the project task runtime picks the task up. */
export const PROJECT_TASK_ADMISSION_TOPIC = "project-task-admission";
/** Payload `{ scope, serialized, sourceKey? }`: the room broker ingests the foreign event. */
export const ROOM_EVENT_TOPIC = "room-event";
/** Payload `{ tenantId }`: reload that tenant's assistants. */
export const ASSISTANT_CHANGED_TOPIC = "assistant-changed";
/** Payload `{ tenantId, serverKey }`: reconcile that MCP server from the store. */
export const MCP_CONFIG_CHANGED_TOPIC = "mcp-config-changed";
/** Payload `{ tenantId }`: invalidate that tenant's cached plugin catalog. */
export const PLUGIN_CATALOG_CHANGED_TOPIC = "plugin-catalog-changed";
/** A schedule was created, changed or removed: peers refresh their timers. */
export const SCHEDULE_CHANGED_TOPIC = "schedule-changed";

export const OUTBOX_TOPICS = [
  TASK_LIFECYCLE_TOPIC,
  PROJECT_TASK_ADMISSION_TOPIC,
  ROOM_EVENT_TOPIC,
  ASSISTANT_CHANGED_TOPIC,
  MCP_CONFIG_CHANGED_TOPIC,
  PLUGIN_CATALOG_CHANGED_TOPIC,
  SCHEDULE_CHANGED_TOPIC,
] as const;

export type OutboxTopic = (typeof OUTBOX_TOPICS)[number];

/** A task reached a new status. Timestamps are ISO strings: the event crosses processes as JSON. */
export interface TaskLifecycleEvent {
  tenantId: string;
  taskId: string;
  status: TaskStatus;
  updatedAt: string;
  workspaceId?: string;
  projectId?: string;
  ownerId?: string;
  failureReason?: string;
}

/** A task was assigned to an agent in a project and dispatched: some replica must start it. */
export interface ProjectTaskAdmissionEvent {
  tenantId: string;
  workspaceId?: string;
  projectId: string;
  taskId: string;
  ownerId: string;
  updatedAt: string;
}
