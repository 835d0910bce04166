export { OutboxArgumentError, OutboxCursorError, OutboxPayloadError } from "./outboxErrors";
export { validateOutboxAge, validateOutboxAppend, validateOutboxLimit, type ValidOutboxAppend } from "./outboxArguments";
export { decodeOutboxCursor, encodeOutboxCursor, type OutboxPosition } from "./outboxCursor";
export { InMemoryOutboxStore, type InMemoryOutboxStoreOptions } from "./inMemoryOutboxStore";
export { OutboxPoller, type OutboxHandler, type OutboxPollerOptions, type OutboxPollerStats } from "./outboxPoller";
export { OutboxNotifier, type NotifierListener, type OutboxNotifierOptions } from "./outboxNotifier";
export {
  ProjectTaskAdmissionNotifier,
  TaskLifecycleNotifier,
  isProjectTaskAdmissionEvent,
  isTaskLifecycleEvent,
  taskLifecycleEventOf,
  taskOutboxHandlers,
} from "./taskNotifiers";
export { isOutboxPayload, outboxHandlersOf, type OutboxPayloadParser, type OutboxTopicHandler, type OutboxTopicHandlers } from "./outboxTopicHandlers";
export { OutboxRetentionJob, type OutboxRetentionJobOptions } from "./outboxRetentionJob";
