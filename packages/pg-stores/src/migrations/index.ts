import { threadsAssistantsMigration } from "./001_threads_assistants";
import { threadMessageQueueMigration } from "./002_thread_message_queue";
import { scheduledTasksMigration } from "./003_scheduled_tasks";
import { leasesMigration } from "./185_leases";
import { queueClaimMigration } from "./186_queue_claim";
import { outboxMigration } from "./187_outbox";
import { queueRunRetentionMigration } from "./188_queue_run_retention";
import { queueMessageIdPerTenantMigration } from "./189_queue_message_id_per_tenant";
import { replicaPresenceMigration } from "./190_replica_presence";
import { tasksMigration } from "./191_tasks";
import { projectsMigration } from "./192_projects";
import { taskScanMigration } from "./193_task_scan";
import { projectRoomsMigration } from "./194_project_rooms";
import { modelProvidersMigration } from "./195_model_providers";
import { mcpServerConfigsMigration } from "./196_mcp_server_configs";
import { pluginSettingsMigration } from "./197_plugin_settings";
import { queueTenantOpenMigration } from "./198_queue_tenant_open";
import { runEventsMigration } from "./199_run_events";
import { queueAbortRequestMigration } from "./200_queue_abort_request";
import { queueAttemptsMigration } from "./201_queue_attempts";
import { assistantGraphFieldsMigration } from "./202_assistant_graph_fields";
import { queueAvailableAtMigration } from "./203_queue_available_at";
import { storeItemsMigration } from "./204_store_items";
import { assistantVersionsMigration } from "./205_assistant_versions";
import { threadTtlMigration } from "./206_thread_ttl";
import { replicaPresenceRoleMigration } from "./208_replica_presence_role";
import { registryPageOrderMigration } from "./209_registry_page_order";
import { creationOrderPagesMigration } from "./210_creation_order_pages";
import { threadAndRunPagesMigration } from "./212_thread_and_run_pages";
import { agentMessagePayloadKeysMigration } from "./213_agent_message_payload_keys";
import { webAppsMigration } from "./214_web_apps";
import { threadConfigMigration } from "./219_thread_config";
import type { Migration } from "./migration";
import { SQL_MIGRATIONS_DIR, inVersionOrder, readSqlMigrations } from "./sqlMigrations";

// The first migrations are TypeScript modules, never edited; from 220 on they are numbered .sql files.
const typescriptMigrations: readonly Migration[] = [
  threadsAssistantsMigration,
  threadMessageQueueMigration,
  scheduledTasksMigration,
  leasesMigration,
  queueClaimMigration,
  outboxMigration,
  queueRunRetentionMigration,
  queueMessageIdPerTenantMigration,
  replicaPresenceMigration,
  tasksMigration,
  projectsMigration,
  taskScanMigration,
  projectRoomsMigration,
  modelProvidersMigration,
  mcpServerConfigsMigration,
  pluginSettingsMigration,
  queueTenantOpenMigration,
  runEventsMigration,
  queueAbortRequestMigration,
  queueAttemptsMigration,
  assistantGraphFieldsMigration,
  queueAvailableAtMigration,
  storeItemsMigration,
  assistantVersionsMigration,
  threadTtlMigration,
  replicaPresenceRoleMigration,
  registryPageOrderMigration,
  creationOrderPagesMigration,
  threadAndRunPagesMigration,
  agentMessagePayloadKeysMigration,
  webAppsMigration,
  threadConfigMigration,
];

/** Every migration the stores need, in version order: a version taken twice fails the import. */
export const allMigrations: readonly Migration[] = inVersionOrder([...typescriptMigrations, ...readSqlMigrations(SQL_MIGRATIONS_DIR)]);
