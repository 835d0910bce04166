import {
  type MessageQueueStore,
  type Logger,
  InMemoryAssistantStore,
  InMemoryItemStore,
  InMemoryLeaseStore,
  InMemoryMessageQueueStore,
  InMemoryModelProviderStore,
  InMemoryOutboxStore,
  InMemoryProjectRoomMessageStore,
  InMemoryProjectRoomStore,
  InMemoryProjectStore,
  InMemoryReplicaPresenceStore,
  InMemoryRunEventLog,
  InMemoryMcpServerConfigStore,
  InMemoryPluginSettingStore,
  InMemoryTaskStore,
  InMemoryThreadStore,
  InMemoryUnitOfWork,
  InMemoryWebAppStore,
  MemoryScheduleStorage,
  type QueueWakeup,
  type SecretKeyring,
} from "@axiom-lattice/core";
import { type QueryConfig, allMigrations, createPgStoreConfig, resealStoredSecrets } from "@axiom-lattice/pg-stores";
import type {
  AssistantStore,
  ItemStore,
  LeaseStore,
  ModelProviderStore,
  OutboxStore,
  ProjectRoomMessageStore,
  ProjectRoomStore,
  ProjectStore,
  ReplicaPresenceStore,
  ScheduleStorage,
  McpServerConfigStore,
  PluginSettingStore,
  RunEventLog,
  TaskStore,
  ThreadStore,
  UnitOfWork,
  WebAppStore,
} from "@axiom-lattice/protocols";
import { InMemoryCheckpointSaver } from "@axiom-lattice/agent";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { DatabaseSettings } from "../config";
import { READINESS_TIMEOUT_MS } from "../defaults";
import type { PoolCounts } from "../metrics/poolGauges";

/** A check `/ready` runs; it throws (or rejects) when the dependency is not usable. */
export type ReadinessCheck = { name: string; check: () => Promise<void> };

/**
 * The stores one gateway runs on: its own instances, handed to every component that needs them.
 * `inTransaction` commits task writes with the outbox events announcing them.
 */
export interface GatewayStores extends UnitOfWork {
  kind: "memory" | "postgres";
  /** PostgreSQL only: the migrations this process applied (none when a peer had) and the schema's version. */
  migrations?: { applied: number[]; schemaVersion: number };
  lease: LeaseStore;
  /** Which replicas are alive (`GET /api/cluster`). */
  presence: ReplicaPresenceStore;
  outbox: OutboxStore;
  queue: MessageQueueStore;
  threads: ThreadStore;
  assistants: AssistantStore;
  /** The tenants' model provider catalogs (API keys sealed at rest). */
  modelProviders: ModelProviderStore;
  /** The tenants' web apps and their end users' threads (secrets sealed at rest). */
  webApps: WebAppStore;
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
  /** Each tenant's long-term memory (the LangGraph API's `/store`, and its runs' `getStore()`). */
  items: ItemStore;
  schedules: ScheduleStorage;
  /** Every run's stream, replayable and followed on any replica. */
  runEvents: RunEventLog;
  /** LangGraph's checkpointer: where conversations live. */
  checkpoint: BaseCheckpointSaver;
  /** Cross-replica queue wake-ups (PostgreSQL NOTIFY); in one process the runtime's own suffice. */
  queueWakeup?: QueueWakeup;
  readiness: ReadinessCheck[];
  /** PostgreSQL only: the shared pool's counts (`/metrics`). */
  pool?: PoolCounts;
  dispose(): Promise<void>;
}

/**
 * PostgreSQL stores on one pool when `databaseUrl` is set (migrated and with LangGraph's checkpoint
 * tables set up before this returns), fresh in-memory stores otherwise. `keyring` seals stored secrets;
 * `database` sizes the pool and bounds its waits (pg-stores' defaults when absent), and its `listenUrl`
 * (direct) declares `databaseUrl` a transaction pooler: LISTEN and migrations use it.
 */
export async function createGatewayStores(
  databaseUrl: string | undefined,
  logger: Logger,
  keyring: SecretKeyring,
  database?: DatabaseSettings,
): Promise<GatewayStores> {
  if (!databaseUrl) {
    // The lease store judges the fences of the writes runs make under their thread-run leases.
    const lease = new InMemoryLeaseStore();
    const fenced = { fences: lease };
    const projects = new InMemoryProjectStore();
    const rooms = new InMemoryProjectRoomStore(projects);
    const tasks = new InMemoryTaskStore(fenced);
    const outbox = new InMemoryOutboxStore({ logger });
    const unitOfWork = new InMemoryUnitOfWork({ tasks, outbox });
    return {
      kind: "memory",
      inTransaction: (fn) => unitOfWork.inTransaction(fn),
      lease,
      presence: new InMemoryReplicaPresenceStore(),
      outbox,
      queue: new InMemoryMessageQueueStore(fenced),
      threads: new InMemoryThreadStore(),
      assistants: new InMemoryAssistantStore(),
      modelProviders: new InMemoryModelProviderStore(),
      webApps: new InMemoryWebAppStore(),
      projects,
      rooms,
      roomMessages: new InMemoryProjectRoomMessageStore(rooms),
      tasks,
      mcp: new InMemoryMcpServerConfigStore(),
      pluginSettings: new InMemoryPluginSettingStore(),
      items: new InMemoryItemStore(fenced),
      schedules: new MemoryScheduleStorage(),
      runEvents: new InMemoryRunEventLog(fenced),
      checkpoint: new InMemoryCheckpointSaver(lease),
      readiness: [],
      dispose: async () => {},
    };
  }

  const poolConfig = database && {
    max: database.poolMax,
    connectionTimeoutMillis: database.connectTimeoutMs,
    statement_timeout: database.statementTimeoutMs,
    idleTimeoutMillis: database.idleTimeoutMs,
  };
  const pg = await createPgStoreConfig(databaseUrl, {
    poolConfig: { ...poolConfig, application_name: "lattice-gateway" },
    directConnectionString: database?.listenUrl,
    logger,
    keyring,
  });
  // Replicas starting together take turns on the migration lock: the first applies, the others find
  // nothing left to do. Logged, so an operator (and the e2e suite) sees which replica did the work.
  logger.info({ phase: "startup", appliedMigrations: pg.appliedMigrations }, "database schema ready");
  // Secrets stored in plain text by an older version are sealed now, without operator action. Only
  // plain text: that opens nothing, so it cannot fail on a key version this replica does not know
  // (replicas mid-rotation may start with different key lists), and moving sealed values to a new
  // key stays the operator's `keys:rotate`, run once every replica has the new key.
  try {
    const { kinds } = await resealStoredSecrets(pg.pool, { keyring, scope: "plainText" });
    const sealed = Object.fromEntries(Object.entries(kinds).filter(([, count]) => count.resealed > 0).map(([kind, count]) => [kind, count.resealed]));
    if (Object.keys(sealed).length > 0) logger.info({ phase: "startup", sealed }, "plain-text secrets sealed at rest");
  } catch (error) {
    await pg.dispose();
    throw error;
  }
  const migrationsApplied: ReadinessCheck = {
    name: "database",
    check: async () => {
      // A connection that does not answer is given up (and discarded) as soon as the probe is; node-postgres
      // reads a query's own query_timeout, which its types leave out.
      const probe: QueryConfig & { query_timeout: number } = {
        text: "SELECT count(*)::int AS applied FROM lattice_schema_migrations WHERE version = ANY($1::int[])",
        values: [allMigrations.map((migration) => migration.version)],
        query_timeout: READINESS_TIMEOUT_MS,
      };
      const { rows } = await pg.pool.query<{ applied: number }>(probe);
      if (rows[0].applied !== allMigrations.length) {
        throw new Error(`${allMigrations.length - rows[0].applied} migration(s) not applied`);
      }
    },
  };
  return {
    kind: "postgres",
    inTransaction: (fn) => pg.unitOfWork.inTransaction(fn),
    migrations: { applied: pg.appliedMigrations, schemaVersion: Math.max(...allMigrations.map((migration) => migration.version)) },
    lease: pg.lease,
    presence: pg.presence,
    outbox: pg.outbox,
    queue: pg.threadMessageQueue,
    threads: pg.thread,
    assistants: pg.assistant,
    modelProviders: pg.modelProvider,
    webApps: pg.webApp,
    projects: pg.project,
    rooms: pg.projectRoom,
    roomMessages: pg.projectRoomMessage,
    tasks: pg.task,
    mcp: pg.mcp,
    pluginSettings: pg.pluginSetting,
    items: pg.item,
    schedules: pg.schedule,
    runEvents: pg.runEvents,
    checkpoint: pg.checkpoint,
    queueWakeup: pg.queueWakeup,
    readiness: [migrationsApplied],
    pool: pg.pool,
    dispose: () => pg.dispose(),
  };
}
