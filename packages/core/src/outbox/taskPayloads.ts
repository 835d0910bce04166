// The task topics' payload parsers: the notifiers and the outbox's topic table both use them.
import { TaskStatus, type ProjectTaskAdmissionEvent, type TaskLifecycleEvent } from "@axiom-lattice/protocols";
import { isId, isOptionalString, isRecord } from "./payloadShapes";

const STATUSES = new Set<unknown>(Object.values(TaskStatus));

export function isTaskLifecycleEvent(payload: unknown): payload is TaskLifecycleEvent {
  return (
    isRecord(payload) &&
    isId(payload.tenantId) &&
    isId(payload.taskId) &&
    STATUSES.has(payload.status) &&
    isId(payload.updatedAt) &&
    isOptionalString(payload.workspaceId) &&
    isOptionalString(payload.projectId) &&
    isOptionalString(payload.ownerId) &&
    isOptionalString(payload.failureReason)
  );
}

export function isProjectTaskAdmissionEvent(payload: unknown): payload is ProjectTaskAdmissionEvent {
  return (
    isRecord(payload) &&
    isId(payload.tenantId) &&
    isOptionalString(payload.workspaceId) &&
    isId(payload.projectId) &&
    isId(payload.taskId) &&
    isId(payload.ownerId) &&
    isId(payload.updatedAt)
  );
}
