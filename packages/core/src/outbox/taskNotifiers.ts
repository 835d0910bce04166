import { PROJECT_TASK_ADMISSION_TOPIC, TASK_LIFECYCLE_TOPIC, type ProjectTaskAdmissionEvent, type TaskItem, type TaskLifecycleEvent } from "@axiom-lattice/protocols";
import { OutboxNotifier, type OutboxNotifierOptions } from "./outboxNotifier";
import type { OutboxTopicHandlers } from "./outboxTopicHandlers";
import { isProjectTaskAdmissionEvent, isTaskLifecycleEvent } from "./taskPayloads";

/** The event announcing `task`'s status as written: what every writer of a status publishes. */
export function taskLifecycleEventOf(task: TaskItem): TaskLifecycleEvent {
  const event: TaskLifecycleEvent = { tenantId: task.tenantId, taskId: task.id, status: task.status, updatedAt: task.updatedAt.toISOString(), ownerId: task.ownerId };
  if (task.workspaceId !== undefined) event.workspaceId = task.workspaceId;
  if (task.projectId !== undefined) event.projectId = task.projectId;
  if (task.failureReason !== undefined) event.failureReason = task.failureReason;
  return event;
}

/** Task status changes, heard by local listeners on every replica. */
export class TaskLifecycleNotifier extends OutboxNotifier<TaskLifecycleEvent> {
  constructor(options?: OutboxNotifierOptions) {
    super(TASK_LIFECYCLE_TOPIC, isTaskLifecycleEvent, options);
  }
}

/** Tasks admitted to a project's task machine; whichever replica observes one starts it. */
export class ProjectTaskAdmissionNotifier extends OutboxNotifier<ProjectTaskAdmissionEvent> {
  constructor(options?: OutboxNotifierOptions) {
    super(PROJECT_TASK_ADMISSION_TOPIC, isProjectTaskAdmissionEvent, options);
  }
}

/** Hands peers' task events to these notifiers' local listeners. */
export function taskOutboxHandlers(notifiers: { taskLifecycle: TaskLifecycleNotifier; projectTaskAdmission: ProjectTaskAdmissionNotifier }): OutboxTopicHandlers {
  return {
    [TASK_LIFECYCLE_TOPIC]: (event) => notifiers.taskLifecycle.deliverFromOutbox(event),
    [PROJECT_TASK_ADMISSION_TOPIC]: (event) => notifiers.projectTaskAdmission.deliverFromOutbox(event),
  };
}
