export { getReplicaId } from "./identity/replicaId";
export { defaultLogger, type Logger } from "./logging/logger";
export * from "./coordination";
export * from "./outbox";
export * from "./observability";
export * from "./presence";
export { RetentionJob, type RetentionJobOptions } from "./retention/retentionJob";
export {
  DuplicateMessageError,
  QueueFullError,
  RunTargetNotFoundError,
  ABORTED_RUN_ERROR,
  type QueueBound,
  type AddMessageParams,
  type ClaimMessagesOptions,
  type CompletedAndClaimed,
  type FinishedRunStatus,
  type MessageQueueStore,
  type PendingMessage,
  type QueueScope,
  type QueuedMessageStatus,
  type RunOutcome,
  type RunStatus,
  type TakenBackAndClaimed,
  type ThreadInfo,
  type ThreadQueueRef,
} from "./queue/messageQueueStore";
export { InMemoryMessageQueueStore, type InMemoryMessageQueueStoreOptions } from "./queue/inMemoryMessageQueueStore";
export { asQueueNotice, type QueueNotice, type QueueWakeup, type QueueWakeupListener } from "./queue/queueWakeup";
export { InProcessQueueWakeup } from "./queue/inProcessQueueWakeup";
// The argument checks are exported for the PostgreSQL stores, so both implementations refuse alike.
export {
  validateAddMessage,
  validateAbortTarget,
  validateCapacity,
  validateClaimOptions,
  validateMessageId,
  validatePendingOptions,
  validateRenewal,
  validateRunAge,
  validateRunOutcome,
  validateScope,
  validateThreadId,
  validateThreadQueue,
  type ValidMessage,
} from "./queue/queueArguments";
export { InMemoryThreadStore } from "./threads/inMemoryThreadStore";
export { validateCreateThread, validateExpiryClaim, validateMetadata, validateThreadListFilter, validateThreadTtl } from "./threads/threadArguments";
export { InMemoryLangGraphReadModel } from "./langgraph/inMemoryLangGraphReadModel";
export { InMemoryRunTargetReadModel } from "./runs/inMemoryRunTargetReadModel";
export { validateRunsLimit, validateThreadFilter } from "./langgraph/readModelArguments";
export { InMemoryAssistantStore } from "./assistants/inMemoryAssistantStore";
export { validateAssistantVersion, validateAssistantVersionQuery, validateCreateAssistant, validateUpdateAssistant } from "./assistants/assistantArguments";
export { InMemoryMcpServerConfigStore } from "./mcp/inMemoryMcpServerConfigStore";
export {
  MCP_ENV_NAME_PATTERN,
  MCP_HEADER_NAME_PATTERN,
  MCP_HEADER_VALUE_PATTERN,
  MCP_SECRET_ENTRY_LIMIT,
  MCP_SECRET_VALUE_LIMIT,
  MCP_TIMEOUT_LIMIT_MS,
  isReservedMcpHeaderName,
  keepStoredMcpSecrets,
  requireMcpServerKey,
  validateCreateMcpServerConfig,
  validateUpdateMcpServerConfig,
  type ValidMcpServerConfig,
} from "./mcp/mcpConfigArguments";
export { InMemoryPluginSettingStore } from "./plugins/inMemoryPluginSettingStore";
export { InMemoryA2aPushConfigStore } from "./a2a/inMemoryA2aPushConfigStore";
export { validateA2aPushConfig } from "./a2a/a2aPushConfigArguments";
export { InMemoryItemStore, type InMemoryItemStoreOptions } from "./items/inMemoryItemStore";
export { type ItemCondition, type ValidItemSearch, type ValidNamespaceListing, itemLabel, itemLabels, itemNamespace, validateItemAddress, validateItemSearch, validateItemWrite, validateNamespaceListing } from "./items/itemArguments";
export { itemExpirySweep } from "./items/itemExpirySweep";
export { InMemoryRunEventLog } from "./runs/inMemoryRunEventLog";
export { validatePluginSetting } from "./plugins/pluginSettingArguments";
export { InMemoryTaskStore } from "./tasks/inMemoryTaskStore";
export { InMemoryUnitOfWork } from "./stores/inMemoryUnitOfWork";
export { type InMemoryStores, createInMemoryStores } from "./stores/inMemoryStores";
export {
  requireTaskId,
  requireTaskStatuses,
  validateCreateTask,
  validateListFilter,
  validateScanRequest,
  validateSnapshot,
  validateUpdateTask,
  validateWriteOptions,
  type TaskFields,
  type ValidTask,
} from "./tasks/taskArguments";
export { taskPageKey } from "./tasks/taskListing";
export { anyTask, matchesSnapshot, nextUpdatedAt, planTaskWrite, statusIn, type TaskGuard } from "./tasks/taskWrites";
export { StaleFencingTokenError } from "./tasks/staleFencingTokenError";
export { scanEveryTask } from "./tasks/taskScan";
export { RecordExistsError } from "./stores/recordExistsError";
export { StoreArgumentError, requireTenantId, requireText } from "./stores/storeArguments";
export {
  comparePageKeys,
  MAX_PAGE_LIMIT,
  PageCursorError,
  type PageKey,
  type PageKeyShape,
  pageOf,
  pageOfSorted,
  readAllPages,
  readPageRequest,
} from "./stores/keysetPages";
export { CREATION_PAGE_SHAPE } from "./stores/creationOrder";
export { boundedJson, jsonBoundsProblem } from "./stores/jsonBounds";
export { INT32_MAX, INT32_MIN, fieldRules, parseStoreArgument } from "./validation";
export { jsonContains } from "./stores/jsonContainment";
export * from "./defaults";
export * from "./schedule";
export { InMemoryProjectStore } from "./projects/inMemoryProjectStore";
export { requireAssistantId, requireProjectId, validateCreateProject, validateUpdateProject } from "./projects/projectArguments";
export {
  type ExclusiveWait,
  MutexReentryError,
  ProjectTaskExecutionMutex,
  projectTaskMachineLeaseKey,
  type ProjectTaskExecutionMutexOptions,
  type ProjectTaskScope,
  type ProjectTaskSection,
} from "./projects/projectTaskExecutionMutex";
export { InMemoryProjectRoomStore } from "./rooms/inMemoryProjectRoomStore";
export { InMemoryProjectRoomMessageStore } from "./rooms/inMemoryProjectRoomMessageStore";
export { ROOM_MESSAGE_PAGE_SHAPE, requireRoomId, roomMessageCursor, roomMessagePageKey, validateAppendMessage, validateCreateRoom, validateRoomScope } from "./rooms/roomArguments";
export * from "./secrets";
export * from "./modelProviders";
export * from "./webApps";
export * from "./apiKeys";
export * from "./egress";
export { isDatabaseUnavailable } from "./database/databaseUnavailable";
