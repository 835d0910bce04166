export type { PgStoreOptions } from "./db/pool";
export { createStorePool, type PoolerOptions } from "./db/pooler";
export { PgStore } from "./db/pgStore";
export { PostgreSQLUnitOfWork, type PostgreSQLUnitOfWorkOptions } from "./db/postgresqlUnitOfWork";
export type { Migration } from "./migrations/migration";
export { allMigrations } from "./migrations/index";
export { MIGRATION_LOCK_KEY, MigrationError, countMissingMigrations, ensureMigrated, runMigrations, type MigrationResult } from "./migrations/migrator";
export { PostgreSQLLeaseStore } from "./coordination/postgresqlLeaseStore";
export { PostgreSQLReplicaPresenceStore } from "./presence/postgresqlReplicaPresenceStore";
export { PostgreSQLOutboxStore, type OutboxAppendOptions, type PostgreSQLOutboxStoreOptions } from "./outbox/postgresqlOutboxStore";
export { PostgreSQLMessageQueueStore, type PostgreSQLMessageQueueStoreOptions } from "./queue/postgresqlMessageQueueStore";
export { PostgreSQLThreadStore } from "./threads/postgresqlThreadStore";
export { PostgreSQLLangGraphReadModel } from "./langgraph/postgresqlLangGraphReadModel";
export { PostgreSQLRunTargetReadModel } from "./runs/postgresqlRunTargetReadModel";
export { PostgreSQLAssistantStore, type PostgreSQLAssistantStoreOptions } from "./assistants/postgresqlAssistantStore";
export { PostgreSQLModelProviderStore, type PostgreSQLModelProviderStoreOptions } from "./modelProviders/postgresqlModelProviderStore";
export { PostgreSQLApiKeyStore } from "./apiKeys/postgresqlApiKeyStore";
export { PostgreSQLWebAppStore, type PostgreSQLWebAppStoreOptions } from "./webApps/postgresqlWebAppStore";
export { PostgreSQLMcpServerConfigStore, type PostgreSQLMcpServerConfigStoreOptions } from "./mcp/postgresqlMcpServerConfigStore";
export {
  UnreadableSecretsError,
  resealStoredSecrets,
  type ResealCount,
  type ResealStoredSecretsOptions,
  type ResealSummary,
  type StoredSecretKind,
  type UnreadableSecret,
} from "./secrets/resealStoredSecrets";
export { PostgreSQLPluginSettingStore } from "./plugins/postgresqlPluginSettingStore";
export { PostgreSQLA2aPushConfigStore } from "./a2a/postgresqlA2aPushConfigStore";
export { PostgreSQLItemStore } from "./items/postgresqlItemStore";
export { PostgreSQLCheckpointSaver } from "./checkpoints/postgresqlCheckpointSaver";
export { PostgreSQLRunEventLog } from "./runs/postgresqlRunEventLog";
export { PostgreSQLProjectStore } from "./projects/postgresqlProjectStore";
export { PostgreSQLProjectRoomStore } from "./rooms/postgresqlProjectRoomStore";
export { PostgreSQLProjectRoomMessageStore } from "./rooms/postgresqlProjectRoomMessageStore";
export { PostgreSQLTaskStore } from "./tasks/postgresqlTaskStore";
export { createPostgreSQLStores, type PostgreSQLStores, type PostgreSQLStoresOptions } from "./config/createPostgreSQLStores";
export { PostgreSQLScheduleStore } from "./schedule/postgresqlScheduleStore";
export { PostgreSQLQueueWakeup, QUEUE_WAKEUP_CHANNEL, type PostgreSQLQueueWakeupOptions } from "./wakeup/postgresqlQueueWakeup";
export { Pool, type PoolConfig, type QueryConfig } from "pg";
export { CONNECT_TIMEOUT_MS, IDLE_IN_TRANSACTION_TIMEOUT_MS, IDLE_TIMEOUT_MS, LISTEN_CONNECTIONS, POOL_MAX, STATEMENT_TIMEOUT_MS } from "./defaults";
export { checkConnection } from "./db/connectionCheck";
