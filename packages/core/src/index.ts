import "./defaults";

export { getReplicaId, resolveReplicaId } from "./identity/replicaId";
export { EventBus } from "./events/eventBus";
export { getLogger, setLogger, type Logger } from "./logging/logger";
export {
  StoreNotRegisteredError,
  getStoreLattice,
  hasStoreLattice,
  registerDefaultStoreFactory,
  registerStoreLattice,
  resetStoreLattice,
  type StoreTypes,
} from "./registry/storeRegistry";
export * from "./coordination";
export {
  DuplicateMessageError,
  QueueFullError,
  type AddMessageParams,
  type ClaimMessagesOptions,
  type FinishedRunStatus,
  type IMessageQueueStore,
  type PendingMessage,
  type QueueScope,
  type QueuedMessageStatus,
  type RunOutcome,
  type RunStatus,
  type ThreadInfo,
} from "./queue/messageQueueStore";
