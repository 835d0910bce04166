import { defaultLogger, type Logger, SecretKeyring } from "@axiom-lattice/core";
import type { Stores } from "@axiom-lattice/protocols";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgreSQLCheckpointSaver } from "../checkpoints/postgresqlCheckpointSaver";
import type { Pool, PoolConfig } from "pg";
import { createPool } from "../db/pool";
import { PostgreSQLAssistantStore } from "../assistants/postgresqlAssistantStore";
import { PostgreSQLModelProviderStore } from "../modelProviders/postgresqlModelProviderStore";
import { PostgreSQLWebAppStore } from "../webApps/postgresqlWebAppStore";
import { PostgreSQLApiKeyStore } from "../apiKeys/postgresqlApiKeyStore";
import { PostgreSQLLeaseStore } from "../coordination/postgresqlLeaseStore";
import { PostgreSQLMcpServerConfigStore } from "../mcp/postgresqlMcpServerConfigStore";
import { PostgreSQLItemStore } from "../items/postgresqlItemStore";
import { PostgreSQLLangGraphReadModel } from "../langgraph/postgresqlLangGraphReadModel";
import { PostgreSQLRunTargetReadModel } from "../runs/postgresqlRunTargetReadModel";
import { PostgreSQLPluginSettingStore } from "../plugins/postgresqlPluginSettingStore";
import { PostgreSQLA2aPushConfigStore } from "../a2a/postgresqlA2aPushConfigStore";
import { type PoolerOptions, withSessionPool } from "../db/pooler";
import { runMigrations } from "../migrations/migrator";
import { PostgreSQLUnitOfWork } from "../db/postgresqlUnitOfWork";
import { PostgreSQLOutboxStore } from "../outbox/postgresqlOutboxStore";
import { PostgreSQLProjectStore } from "../projects/postgresqlProjectStore";
import { PostgreSQLProjectRoomMessageStore } from "../rooms/postgresqlProjectRoomMessageStore";
import { PostgreSQLProjectRoomStore } from "../rooms/postgresqlProjectRoomStore";
import { PostgreSQLReplicaPresenceStore } from "../presence/postgresqlReplicaPresenceStore";
import { PostgreSQLRunEventLog } from "../runs/postgresqlRunEventLog";
import { PostgreSQLMessageQueueStore } from "../queue/postgresqlMessageQueueStore";
import { PostgreSQLScheduleStore } from "../schedule/postgresqlScheduleStore";
import { PostgreSQLTaskStore } from "../tasks/postgresqlTaskStore";
import { PostgreSQLThreadStore } from "../threads/postgresqlThreadStore";
import { PostgreSQLQueueWakeup } from "../wakeup/postgresqlQueueWakeup";

/** `directConnectionString` declares that `connectionString` goes through a transaction pooler. */
export interface PostgreSQLStoresOptions extends PoolerOptions {
  /** Pool settings besides the connection string (size, timeouts, application_name); unset ones take createPool's defaults. */
  poolConfig?: Omit<PoolConfig, "connectionString">;
  /** Queued messages per thread (default 1000). */
  queueCapacity?: number;
  /** Where the pool and the stores' LISTEN connections report trouble; default: a new `defaultLogger()`, shared by these stores. */
  logger?: Logger;
  /** Seals stored secrets (provider and assistant keys, MCP headers and env); default: the public development key. */
  keyring?: SecretKeyring;
}

/** Every PostgreSQL store of a replica, on one shared pool, under the {@link Stores} names core's in-memory bundle uses too. */
export interface PostgreSQLStores extends Stores {
  pool: Pool;
  /** Versions of the migrations this call applied (empty when another process had applied them). */
  appliedMigrations: number[];
  lease: PostgreSQLLeaseStore;
  presence: PostgreSQLReplicaPresenceStore;
  outbox: PostgreSQLOutboxStore;
  queue: PostgreSQLMessageQueueStore;
  schedules: PostgreSQLScheduleStore;
  threads: PostgreSQLThreadStore;
  langGraph: PostgreSQLLangGraphReadModel;
  /** Assistants, keys sealed with the given keyring. */
  assistants: PostgreSQLAssistantStore;
  runTargets: PostgreSQLRunTargetReadModel;
  /** Model provider catalogs, keys sealed with the given keyring. */
  modelProviders: PostgreSQLModelProviderStore;
  /** The tenants' web apps and their end users' threads, secrets sealed with the given keyring. */
  webApps: PostgreSQLWebAppStore;
  /** The tenants' API keys, only their secrets' hashes stored. */
  apiKeys: PostgreSQLApiKeyStore;
  projects: PostgreSQLProjectStore;
  rooms: PostgreSQLProjectRoomStore;
  roomMessages: PostgreSQLProjectRoomMessageStore;
  tasks: PostgreSQLTaskStore;
  /** MCP server configurations, headers and env sealed with the given keyring. */
  mcp: PostgreSQLMcpServerConfigStore;
  pluginSettings: PostgreSQLPluginSettingStore;
  items: PostgreSQLItemStore;
  /** A2A push-notification configurations, tokens and credentials sealed with the given keyring. */
  a2aPushConfigs: PostgreSQLA2aPushConfigStore;
  /** Cross-replica queue wake-ups (its LISTEN connection opens on the first subscriber). */
  queueWakeup: PostgreSQLQueueWakeup;
  /** Every run's stream, replayable on any replica (its LISTEN connection opens on the first subscriber). */
  runEvents: PostgreSQLRunEventLog;
  /** LangGraph's checkpointer, its tables set up; a run's writes go through it under their lease's fence. */
  checkpoint: PostgreSQLCheckpointSaver;
  /** Task writes and outbox appends in one transaction. */
  unitOfWork: PostgreSQLUnitOfWork;
  /** Stops the stores, then ends the pool. */
  dispose(): Promise<void>;
}

/**
 * Opens one pool and builds every PostgreSQL store on it. The schema is migrated first, and LangGraph's
 * checkpoint tables are set up under the same advisory lock, awaited: replicas starting together
 * take turns, and whoever comes first creates everything once.
 */
export async function createPostgreSQLStores(connectionString: string, options: PostgreSQLStoresOptions = {}): Promise<PostgreSQLStores> {
  const logger = options.logger ?? defaultLogger();
  const pool = createPool({ ...options.poolConfig, connectionString }, options, logger);
  try {
    const checkpoint = new PostgreSQLCheckpointSaver(pool);
    // Behind a pooler, on direct connections: the migration lock is a session lock.
    const { applied } = await withSessionPool(pool, options, (sessions) =>
      runMigrations(sessions, { afterMigrate: () => new PostgresSaver(sessions).setup() }),
    );
    const shared = { pool, autoMigrate: false, directConnectionString: options.directConnectionString, logger };
    const keyring = options.keyring ?? SecretKeyring.development();
    const stores = {
      lease: new PostgreSQLLeaseStore(shared),
      presence: new PostgreSQLReplicaPresenceStore(shared),
      outbox: new PostgreSQLOutboxStore(shared),
      queue: new PostgreSQLMessageQueueStore({ ...shared, capacity: options.queueCapacity }),
      schedules: new PostgreSQLScheduleStore(shared),
      threads: new PostgreSQLThreadStore(shared),
      langGraph: new PostgreSQLLangGraphReadModel(shared),
      assistants: new PostgreSQLAssistantStore({ ...shared, keyring }),
      runTargets: new PostgreSQLRunTargetReadModel(shared),
      modelProviders: new PostgreSQLModelProviderStore({ ...shared, keyring }),
      webApps: new PostgreSQLWebAppStore({ ...shared, keyring }),
      apiKeys: new PostgreSQLApiKeyStore(shared),
      projects: new PostgreSQLProjectStore(shared),
      rooms: new PostgreSQLProjectRoomStore(shared),
      roomMessages: new PostgreSQLProjectRoomMessageStore(shared),
      tasks: new PostgreSQLTaskStore(shared),
      mcp: new PostgreSQLMcpServerConfigStore({ ...shared, keyring }),
      pluginSettings: new PostgreSQLPluginSettingStore(shared),
      items: new PostgreSQLItemStore(shared),
      a2aPushConfigs: new PostgreSQLA2aPushConfigStore({ ...shared, keyring }),
      queueWakeup: new PostgreSQLQueueWakeup(shared),
      runEvents: new PostgreSQLRunEventLog(shared),
    };
    let disposed: Promise<void> | undefined;
    return {
      pool,
      appliedMigrations: applied.map((migration) => migration.version),
      ...stores,
      unitOfWork: new PostgreSQLUnitOfWork({ pool, tasks: stores.tasks, outbox: stores.outbox }),
      checkpoint,
      dispose() {
        disposed ??= Promise.all(Object.values(stores).map((store) => store.dispose())).then(() => pool.end());
        return disposed;
      },
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}
