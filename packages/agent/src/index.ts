export { ScriptedChatModel } from "./models/scriptedChatModel";
export {
  ModelDisabledError,
  ModelProviderRegistry,
  UnknownModelProviderError,
  type ChatModelFactory,
  type ModelProviderRegistryOptions,
} from "./models/modelRegistry";
export type { UpstreamPolicy } from "./models/upstreamPolicy";
export { UpstreamError, classifyUpstreamError, type UpstreamErrorCode } from "./models/upstreamErrors";
export { resolveModelConfig, type ModelProviderCatalog } from "./models/catalogModelConfig";
export { chatProviderOf } from "./models/providerKinds";
export { testProviderConnection, type ConnectionTestResult } from "./models/providerConnectionTest";
export { discoverProviderModels, type DiscoveryResult } from "./models/providerDiscovery";
export { ASK_HUMAN_TOOL } from "./tools/askHuman";
export { MEMORY_READ_TOOL } from "./tools/memoryRead";
export { TenantStore } from "./graph/tenantStore";
export { ToolRegistry, UnknownToolError, type DisabledToolSource, type TenantToolSource } from "./tools/toolRegistry";
export {
  AGENT_NODE,
  GRAPH_NODES,
  TOOLS_NODE,
  buildAssistantGraph,
  checkAssistantReferences,
  type AssistantGraph,
  type AssistantRegistries,
  type NodeInterrupt,
} from "./graph/reactGraph";
export { checkpointThreadId } from "./graph/checkpointThread";
export { GraphNotFoundError, REACT_GRAPH_ID, SubgraphNotFoundError, type DeployedGraphs } from "./graph/deployedGraphs";
export { FencedCheckpointer, type FencingCheckpointSaver } from "./graph/fencedCheckpointer";
export { InMemoryCheckpointSaver } from "./graph/inMemoryCheckpointSaver";
export { clientStateValues, toClientJson } from "./graph/clientJson";
export { clientCheckpointOf } from "./graph/clientCheckpoints";
export { GRAPH_STREAM_MODES, type GraphEvent, type GraphStreamMode } from "./graph/graphStreamEvents";
export { type PlainMessage, toPlainMessage } from "./graph/plainMessage";
export { messagesOfRun } from "./graph/runBoundaries";
export {
  Agent,
  type AbortOptions,
  type AbortResult,
  type AddMessageOptions,
  type AddMessageResult,
  type MultitaskStrategy,
  type ResumeTaskResult,
  type RunMode,
  type RunResult,
  type ThreadState,
  type ThreadStatus,
} from "./runtime/agent";
export { AgentInstanceManager, type AgentRuntimeOptions } from "./runtime/agentInstanceManager";
export type { ChunkBufferLimits, StreamChunk } from "./runtime/chunkBuffers";
export * from "./defaults";
export type { QueueSweepHandle, QueueSweepOptions } from "./runtime/queueSweep";
export { RunAffinity, type RunAffinityOptions } from "./runtime/runAffinity";
export { InvalidRunInputError, type AgentInput, type GraphInput, type GraphRunOptions, type ResumeCommand, type RunContent, type RunGraphSettings, type TaskRunMarker } from "./runtime/runContent";
export type { CompletedRun, StateReadOptions, StateWrite, ThreadHistoryOptions } from "./runtime/runtimeContext";
export { TASK_TOOL } from "./tasks/taskToolName";
export { delegatedTaskId, type DelegatedTaskWait } from "./tasks/taskTool";
export { isSettled, settlementOf, type TaskRunEnd } from "./tasks/taskSettlement";
export { isProjectTask, projectTaskScopeOf, writeTask, type TaskRuntimeOptions } from "./tasks/taskRuntimeDeps";
export type { AnnouncedTaskWriteDeps } from "./tasks/announcedTaskWrite";
export { TaskNotPlacedError, startTaskRun, type TaskMessageDeps } from "./tasks/taskMessages";
export { resumeCaller, resumeTaskRun, type TaskResumeDeps } from "./tasks/taskResumption";
export { taskOutcomeOf, type TaskOutcome } from "./tasks/taskOutcome";
export { TaskService, type TaskServiceOptions, type TaskServiceStores, type TaskUpdate } from "./tasks/service/taskService";
export { TaskError, type TaskErrorCode } from "./tasks/service/taskErrors";
export { TaskDispatcher, type TaskDispatcherOptions, type ProjectTaskRunOutcome } from "./tasks/service/taskDispatch";
export { RECOVERED_BY_KEY, RecoveryActor, TaskOrphanRecovery, type OrphanSweepCounts, type TaskOrphanRecoveryDeps, type TaskRecoveryResult } from "./tasks/service/taskOrphanRecovery";
export { stopRunsOfCancelledTasks } from "./tasks/service/taskCancellation";
export {
  EXECUTION_REQUESTED_AT_KEY,
  RESUMED_AT_KEY,
  RESUME_VALUE_KEY,
  TASK_CALLER_KEY,
  TASK_RUN_KEY,
  callerResumeMessageId,
  placeEntry,
  taskCallerOf,
  taskRunMessageId,
  taskRunThreadOf,
  taskStartMessageId,
  taskThreadId,
} from "./tasks/taskRunPlace";
export { type PendingInterrupt, pendingInterrupts } from "./graph/pendingInterrupts";
export { NothingToResumeError, RecursionLimitError } from "./runtime/runExecution";
export { AssistantNotFoundError, RunInProgressError, ThreadBusyError } from "./runtime/errors";
