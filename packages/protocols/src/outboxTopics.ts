import type { ProjectRoomScope } from "./stores/room";
import type { TaskStatus } from "./stores/task";

// Topics replicas exchange through the outbox (docs/outbox-topics.md: producers, consumers). A peer ignores a
// topic it has no handler for, so adding one never breaks older replicas.

/** Payload {@link TaskLifecycleEvent}: local lifecycle listeners on every peer. */
export const TASK_LIFECYCLE_TOPIC = "task-lifecycle";
/** Payload {@link ProjectTaskAdmissionEvent}: the project task runtime picks the task up. */
export const PROJECT_TASK_ADMISSION_TOPIC = "project-task-admission";
/** Payload {@link RoomEventEnvelope}: the room broker ingests the foreign event. */
export const ROOM_EVENT_TOPIC = "room-event";
/** Payload {@link McpConfigChangedEvent}: reconcile that MCP server from the store. */
export const MCP_CONFIG_CHANGED_TOPIC = "mcp-config-changed";
/** Payload {@link PluginCatalogChangedEvent}: invalidate that tenant's cached plugin catalog. */
export const PLUGIN_CATALOG_CHANGED_TOPIC = "plugin-catalog-changed";
/** Payload {@link ScheduleChangedEvent}: a schedule was created, changed or removed; peers refresh their timers. */
export const SCHEDULE_CHANGED_TOPIC = "schedule-changed";
/** Payload {@link WebAppChangedEvent}: a web app was changed or removed; peers end the streams it no longer serves. */
export const WEB_APP_CHANGED_TOPIC = "web-app-changed";

/**
 * The payload each topic carries: what `OutboxStore.append` accepts for a topic, and what a topic's
 * handler receives once core's parser for that topic has accepted a peer's JSON.
 */
export interface OutboxPayloads {
  [TASK_LIFECYCLE_TOPIC]: TaskLifecycleEvent;
  [PROJECT_TASK_ADMISSION_TOPIC]: ProjectTaskAdmissionEvent;
  [ROOM_EVENT_TOPIC]: RoomEventEnvelope;
  [MCP_CONFIG_CHANGED_TOPIC]: McpConfigChangedEvent;
  [PLUGIN_CATALOG_CHANGED_TOPIC]: PluginCatalogChangedEvent;
  [SCHEDULE_CHANGED_TOPIC]: ScheduleChangedEvent;
  [WEB_APP_CHANGED_TOPIC]: WebAppChangedEvent;
}

export type OutboxTopic = keyof OutboxPayloads;

/** The payload of `topic`; `unknown` for a topic that is not one of {@link OutboxPayloads} (tests, older or newer peers). */
export type OutboxPayload<T extends string> = T extends OutboxTopic ? OutboxPayloads[T] : unknown;

export const OUTBOX_TOPICS = [
  TASK_LIFECYCLE_TOPIC,
  PROJECT_TASK_ADMISSION_TOPIC,
  ROOM_EVENT_TOPIC,
  MCP_CONFIG_CHANGED_TOPIC,
  PLUGIN_CATALOG_CHANGED_TOPIC,
  SCHEDULE_CHANGED_TOPIC,
  WEB_APP_CHANGED_TOPIC,
] as const satisfies readonly OutboxTopic[];

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

/** One room event mirrored to peers: the event as its subscribers receive it, and the key that deduplicates it. */
export interface RoomEventEnvelope {
  scope: ProjectRoomScope;
  serialized: string;
  sourceKey?: string;
}

/** An MCP server's configuration was written. */
export interface McpConfigChangedEvent {
  tenantId: string;
  serverKey: string;
}

/** A tenant's plugin settings were written. */
export interface PluginCatalogChangedEvent {
  tenantId: string;
}

/** A schedule was created, changed or removed. */
export interface ScheduleChangedEvent {
  taskId: string;
}

/** A web app was changed (its status, perhaps disabled) or removed. */
export interface WebAppChangedEvent {
  tenantId: string;
  webAppId: string;
}
