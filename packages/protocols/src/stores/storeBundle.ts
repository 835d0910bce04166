import type { A2aPushConfigStore } from "./a2aPushConfig";
import type { ApiKeyStore } from "./apiKey";
import type { AssistantStore } from "./assistant";
import type { ItemStore } from "./item";
import type { LangGraphReadModel } from "./langGraphReadModel";
import type { LeaseStore } from "./lease";
import type { McpServerConfigStore } from "./mcp";
import type { MessageQueueStore } from "./messageQueue";
import type { ModelProviderStore } from "./modelProvider";
import type { OutboxStore } from "./outbox";
import type { PluginSettingStore } from "./pluginSetting";
import type { ProjectStore } from "./project";
import type { ReplicaPresenceStore } from "./replicaPresence";
import type { ProjectRoomMessageStore, ProjectRoomStore } from "./room";
import type { RunEventLog } from "./runEventLog";
import type { RunTargetReadModel } from "./runTargetReadModel";
import type { ScheduleStore } from "./schedule";
import type { TaskStore } from "./task";
import type { ThreadStore } from "./thread";
import type { WebAppStore } from "./webApp";

/**
 * Every store of one replica, by the names core's in-memory bundle and pg-stores' PostgreSQL bundle
 * both use, so a caller takes either without renaming. LangGraph's checkpointer is not here: its type
 * belongs to LangGraph, which this package does not depend on.
 */
export interface Stores {
  lease: LeaseStore;
  /** Which replicas are alive. */
  presence: ReplicaPresenceStore;
  outbox: OutboxStore;
  queue: MessageQueueStore;
  threads: ThreadStore;
  /** The LangGraph API's reads of the threads' and queue's data (thread search, a thread's latest runs). */
  langGraph: LangGraphReadModel;
  assistants: AssistantStore;
  /** A run request's assistant and thread, read together. */
  runTargets: RunTargetReadModel;
  /** The tenants' model provider catalogs (API keys sealed at rest). */
  modelProviders: ModelProviderStore;
  /** The tenants' web apps and their end users' threads (secrets sealed at rest). */
  webApps: WebAppStore;
  /** The tenants' API keys (only their secrets' hashes stored). */
  apiKeys: ApiKeyStore;
  /** Projects and their member assistants ("bots"). */
  projects: ProjectStore;
  /** Rooms of projects and their messages. */
  rooms: ProjectRoomStore;
  roomMessages: ProjectRoomMessageStore;
  tasks: TaskStore;
  /** Each tenant's MCP server configurations. */
  mcp: McpServerConfigStore;
  /** Each tenant's plugin settings (the tools it switched off). */
  pluginSettings: PluginSettingStore;
  /** Each tenant's long-term memory (the LangGraph store). */
  items: ItemStore;
  schedules: ScheduleStore;
  /** Every run's stream, replayable on any replica. */
  runEvents: RunEventLog;
  /** Where A2A clients are told their tasks stopped. */
  a2aPushConfigs: A2aPushConfigStore;
}
