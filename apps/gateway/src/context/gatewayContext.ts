import { runWebhooks } from "../langgraph/runWebhooks";
import { threadExpirySweep } from "../langgraph/threadExpirySweep";
import { AgentInstanceManager, QUEUE_SWEEP_INTERVAL_MS, RecoveryActor, type TaskService, stopRunsOfCancelledTasks } from "@axiom-lattice/agent";
import {
  DefaultScheduleClient,
  type Logger,
  MaintenanceLoop,
  type MaintenanceTask,
  OutboxPoller,
  type OutboxPollerStats,
  OutboxRetentionJob,
  type ProjectTaskAdmissionNotifier,
  type ProjectTaskExecutionMutex,
  type PresenceHeartbeat,
  RetentionJob,
  type TaskLifecycleNotifier,
  itemExpirySweep,
  outboxHandlersOf,
  runAsLeader,
  startPresenceHeartbeat,
  taskOutboxHandlers,
} from "@axiom-lattice/core";
import {
  MCP_CONFIG_CHANGED_TOPIC,
  PLUGIN_CATALOG_CHANGED_TOPIC,
  type ReplicaAnnouncement,
  SCHEDULE_CHANGED_TOPIC,
} from "@axiom-lattice/protocols";
import type { FastifyInstance } from "fastify";
import type { GatewayConfig } from "../config";
import { createAgentMessageDelivery } from "../schedules/agentMessageDelivery";
import { McpServerManager } from "../mcp/mcpServerManager";
import { PluginCatalog } from "../plugins/pluginCatalog";
import { GatewayMetrics } from "../metrics/gatewayMetrics";
import { observeLeaseStore, observeOutboxStore, observeUnitOfWork } from "../metrics/observedStores";
import { registerPoolGauges } from "../metrics/poolGauges";
import { registerStateGauges } from "../metrics/stateGauges";
import { registerTenantGauges } from "../metrics/tenantGauges";
import { TenantStreams } from "../http/tenantStreams";
import { ProjectRoomEventBroker } from "../rooms/projectRoomEventBroker";
import { publishRoomEvent, roomOutboxHandlers } from "../rooms/roomEventSync";
import { publishTaskEventsIntoRooms } from "../rooms/taskEventsIntoRooms";
import { AGENT_MESSAGE_TASK_TYPE, createAgentMessageHandler } from "../schedules/agentMessageHandler";
import { langgraphCronFire } from "../langgraph/cronFire";
import { LANGGRAPH_CRON_TASK_TYPE } from "../langgraph/cronRequest";
import { createGatewayTasks } from "../tasks/gatewayTasks";
import { GATEWAY_VERSION } from "../version";
import { type GatewayStores, createGatewayStores } from "../stores/gatewayStores";

/**
 * Everything one gateway runs on, built once and handed to every route and component that needs it:
 * its stores, logger and replica id are passed in, and its agent runtime owns its model provider and
 * tool registries. Nothing of it lives in module state, so several gateways share a process without meeting.
 */
export interface GatewayContext {
  config: GatewayConfig;
  replicaId: string;
  logger: Logger;
  stores: GatewayStores;
  agents: AgentInstanceManager;
  schedules: DefaultScheduleClient;
  /** Realtime events of project rooms: this replica's subscribers, its replay ring, mirrored to peers. */
  roomEvents: ProjectRoomEventBroker;
  /** Task events: heard by local listeners, carried to peers by the outbox. */
  notifiers: { taskLifecycle: TaskLifecycleNotifier; projectTaskAdmission: ProjectTaskAdmissionNotifier };
  /** Serialises the work on each project task machine, in this process and across replicas. */
  projectTaskMachine: ProjectTaskExecutionMutex;
  /** Creates, changes, dispatches, cancels, resumes and recovers tasks. */
  tasks: TaskService;
  /** This replica's MCP servers and the tools they give each tenant's assistants. */
  mcp: McpServerManager;
  /** Each tenant's plugin catalog (the tools its assistants could enable), its settings cached here. */
  plugins: PluginCatalog;
  /** Deletes completed runs older than `AXIOM_RUN_RETENTION_HOURS`; a task of the maintenance loop. */
  runRetention: RetentionJob;
  /** Deletes runs' logged events older than `AXIOM_RUN_EVENT_RETENTION_HOURS`; a task of the maintenance loop. */
  runEventRetention: RetentionJob;
  /** Deletes threads whose TTL ran out; a task of the maintenance loop. */
  threadExpiry: MaintenanceTask;
  /** Cluster upkeep on one replica at a time (`leader:maintenance`); started by `startBackground`. */
  maintenance: MaintenanceLoop;
  /** This gateway's Prometheus instruments (`/metrics`). */
  metrics: GatewayMetrics;
  /** The streams each tenant has open on this replica, within `AXIOM_TENANT_MAX_STREAMS`. */
  streams: TenantStreams;
  /** This replica's outbox delivery counters. */
  outboxStats(): OutboxPollerStats;
  /** What this replica announces about itself to `GET /api/cluster`, as of now. */
  describeReplica(): ReplicaAnnouncement;
  /**
   * Starts the outbox poller, then runs startup recovery on exactly one replica (leader gate) while
   * every other replica arms its schedules: the poller's cursor is taken before the schedules are
   * read, so a peer's change made in between still arrives.
   */
  recover(): Promise<void>;
  /** Starts background work (presence, the maintenance loop, and the queue sweep unless this is an `api` replica) once the server listens. */
  startBackground(): Promise<void>;
  /** Stops background work, hands running messages back, releases leases, closes the stores. */
  close(): Promise<void>;
}

export async function createGatewayContext(config: GatewayConfig, logger: Logger): Promise<GatewayContext> {
  const { replicaId } = config;
  const startedAt = new Date();
  const metrics = new GatewayMetrics();
  const created = await createGatewayStores(config.databaseUrl, logger, config.secrets.keyring, config.database);
  // Every component gets the counted stores, so each acquisition and append anywhere is seen.
  const stores: GatewayStores = {
    ...created,
    lease: observeLeaseStore(created.lease, metrics),
    outbox: observeOutboxStore(created.outbox, metrics),
    inTransaction: observeUnitOfWork(created, metrics),
  };
  const { outbox, queue } = stores;

  if (!config.auth.required) {
    logger.warn(
      { phase: "startup" },
      "AUTHENTICATION IS OFF (development mode): any client may act as any tenant through x-tenant-id. Set AUTH_REQUIRED=true and a key before serving anyone but yourself",
    );
  }
  if (config.replicaAffinity && stores.kind === "memory") {
    logger.warn(
      { phase: "startup" },
      "AXIOM_REPLICA_ID is set but every store is in-memory (per-process only): set DATABASE_URL to run several replicas",
    );
  }

  const { service: tasks, notifiers, machine: projectTaskMachine } = createGatewayTasks(config, stores, logger, (scope) => agents.wake(scope));
  const mcp = new McpServerManager({
    store: stores.mcp,
    logger,
    targets: { egress: config.upstream.egress, stdioAllow: config.mcpStdioAllow },
    announce: async (tenantId, serverKey) => {
      await outbox.append({ topic: MCP_CONFIG_CHANGED_TOPIC, payload: { tenantId, serverKey }, originReplicaId: replicaId });
    },
  });
  const plugins = new PluginCatalog({
    settings: stores.pluginSettings,
    // The agent runtime's own registry, read when the catalog is (the runtime is built below).
    registeredTools: () => agents.tools.list(),
    mcpTools: (tenantId) => mcp.tenantTools(tenantId),
    logger,
    announce: async (tenantId) => {
      await outbox.append({ topic: PLUGIN_CATALOG_CHANGED_TOPIC, payload: { tenantId }, originReplicaId: replicaId });
    },
  });
  const agents: AgentInstanceManager = new AgentInstanceManager({
    queue,
    leases: stores.lease,
    assistants: stores.assistants,
    modelProviders: stores.modelProviders,
    threads: stores.threads,
    checkpointer: stores.checkpoint,
    items: stores.items,
    wakeup: stores.queueWakeup,
    // Off: streams are served by the replica running them only (affinity_miss elsewhere), and nothing is
    // logged. In memory there is no other replica to serve, and a log would only hold every token for a day.
    runEvents: config.streamRelay && stores.kind === "postgres" ? stores.runEvents : undefined,
    runEventFlushMs: config.runEventFlushMs,
    maxConcurrentRuns: config.maxConcurrentRuns,
    // An api replica leaves every run to the workers; they act on its wake-ups at once, as it never
    // takes the thread itself (the delay only lets an enqueuing replica that runs messages go first).
    executeRuns: config.role !== "api",
    ...(config.role === "worker" ? { peerWakeDelayMs: 0 } : {}),
    maxConcurrentRunsPerTenant: config.tenantLimits.maxConcurrentRuns,
    upstream: config.upstream,
    openAiApiKey: config.openAiApiKey,
    threadRunTtlMs: config.runLeaseMs,
    claimLeaseMs: config.runLeaseMs,
    replicaId,
    logger,
    observer: metrics.observer,
    onRunCompleted: runWebhooks({ agents: (): AgentInstanceManager => agents, threads: stores.threads, egress: config.upstream.egress, logger }),
    tasks: tasks.runtime,
    tenantTools: (tenantId) => mcp.tenantTools(tenantId),
    disabledTools: (tenantId) => plugins.disabled(tenantId),
  });
  tasks.dispatcher.start();
  const schedules = new DefaultScheduleClient({
    storage: stores.schedules,
    replicaId,
    logger,
    heartbeatIntervalMs: config.scheduleHeartbeatMs,
    observer: metrics.observer,
    onChange: async (taskId) => {
      await outbox.append({ topic: SCHEDULE_CHANGED_TOPIC, payload: { taskId }, originReplicaId: replicaId });
    },
  });
  schedules.registerHandler(
    AGENT_MESSAGE_TASK_TYPE,
    createAgentMessageHandler(createAgentMessageDelivery({ agents, assistants: stores.assistants, threads: stores.threads })),
  );

  const roomEvents = new ProjectRoomEventBroker();
  roomEvents.setBroadcastHook((scope, serialized, sourceKey) => {
    void publishRoomEvent(outbox, replicaId, { scope, serialized, sourceKey }, logger);
  });
  const stopTaskEventsIntoRooms = publishTaskEventsIntoRooms({ lifecycle: notifiers.taskLifecycle, rooms: stores.rooms, broker: roomEvents, logger });
  const stopStoppingCancelledRuns = stopRunsOfCancelledTasks({ tasks: tasks.runtime, agents, lifecycle: notifiers.taskLifecycle });

  const poller = new OutboxPoller({
    store: outbox,
    owner: replicaId,
    log: logger,
    observer: metrics.observer,
    handlers: outboxHandlersOf(
      taskOutboxHandlers(notifiers),
      roomOutboxHandlers(roomEvents, (outcome) => metrics.roomEventsIngested.inc({ outcome })),
      mcp.outboxHandlers(),
      plugins.outboxHandlers(),
      schedules.outboxHandlers(),
    ),
  });
  const outboxRetention = new OutboxRetentionJob({ store: outbox, retentionHours: config.outboxRetentionHours, log: logger });
  // Completed runs are history (…/runs, resume_stream of a finished message); nothing needs them to
  // make progress once they are hours old, the least retention there is.
  const runRetention = new RetentionJob({
    subject: "run",
    prune: (olderThanMs) => queue.pruneRunsOlderThan(olderThanMs),
    retentionHours: config.runRetentionHours,
    log: logger,
  });
  // A run's events serve clients resuming its stream; its outcome stays on its run record.
  const runEventRetention = new RetentionJob({
    subject: "run_event",
    prune: (olderThanMs) => stores.runEvents.pruneOlderThan(olderThanMs),
    retentionHours: config.runEventRetentionHours,
    log: logger,
  });
  const threadExpiry = threadExpirySweep({ threads: stores.threads, queue, agents, logger, intervalMs: config.threadTtlSweepMs });
  // Everything one replica at a time does for the cluster. The queue's expired claims are not here:
  // every replica's queue sweep takes them back (agent package). Orphan recovery passes once per run
  // lease: a task orphaned while its dead replica's leases still lived is converged once they lapse.
  const maintenanceTasks: MaintenanceTask[] = [
    ...schedules.maintenanceTasks(),
    ...outboxRetention.maintenanceTasks(),
    ...runRetention.maintenanceTasks(),
    ...runEventRetention.maintenanceTasks(),
    // Passes cut short (see sweepAdmissions): admissions themselves commit with their dispatch.
    tasks.dispatcher.maintenanceTask(config.runLeaseMs),
    itemExpirySweep(stores.items, { logger }),
    threadExpiry,
    ...(config.taskOrphanRecovery ? [tasks.recovery.maintenanceTask(config.runLeaseMs)] : []),
  ];
  const maintenance = new MaintenanceLoop({
    store: stores.lease,
    tasks: maintenanceTasks,
    intervalMs: config.maintenanceIntervalMs,
    replicaId,
    logger,
  });

  metrics.replicaRole.set({ role: config.role }, 1);
  const outboxStats = () => poller.stats();
  registerStateGauges(metrics, { agents, queue, outboxStats });
  if (stores.pool) registerPoolGauges(metrics, stores.pool);
  const streams = new TenantStreams(config.tenantLimits.maxStreams, (tenant) => metrics.tenantRefusals.inc({ tenant, reason: "too_many_streams" }));
  registerTenantGauges(metrics, { agents, streams });
  const describeReplica = (): ReplicaAnnouncement => {
    const { cursor, lagMs } = outboxStats();
    return {
      replicaId,
      version: GATEWAY_VERSION,
      startedAt,
      storeMode: stores.kind === "postgres" ? "postgresql" : "memory",
      role: config.role,
      activeRuns: agents.stats().runningThreads,
      outboxCursor: cursor,
      outboxLagMs: Math.round(lagMs),
    };
  };

  let started = false;
  let presence: PresenceHeartbeat | undefined;
  let closed: Promise<void> | undefined;
  const context: GatewayContext = {
    config,
    replicaId,
    logger,
    stores,
    agents,
    schedules,
    roomEvents,
    notifiers,
    projectTaskMachine,
    tasks,
    mcp,
    plugins,
    runRetention,
    runEventRetention,
    threadExpiry,
    maintenance,
    metrics,
    streams,
    outboxStats,
    describeReplica,
    async recover() {
      await poller.start();
      // After the poller's cursor: a change made while restoring still arrives and is reconciled.
      logger.info({ phase: "startup", mcpServers: await mcp.restore() }, "MCP servers restored");
      const startupRecovery = async () => ({
        orphanedTasks: config.taskOrphanRecovery ? await tasks.recovery.recoverOrphanedTasks(RecoveryActor.SWEEP) : "disabled",
        schedules: await schedules.restore(),
      });
      const outcome = await runAsLeader(stores.lease, "startup-recovery", startupRecovery, { hold: true, replicaId, logger });
      if (outcome.ran) {
        logger.info({ phase: "startup_recovery", result: outcome.result }, "startup recovery ran on this replica");
      } else {
        logger.info({ phase: "startup_recovery" }, "startup recovery skipped (another replica leads)");
        await schedules.armActive();
      }
    },
    async startBackground() {
      if (started) return;
      started = true;
      maintenance.start();
      presence = await startPresenceHeartbeat({
        store: stores.presence,
        describe: describeReplica,
        intervalMs: config.presenceIntervalMs,
        logger,
      });
      // Closed while announcing: withdraw what was just announced.
      if (closed) await presence.stop();
      if (config.role !== "api") agents.startQueueSweep({ intervalMs: QUEUE_SWEEP_INTERVAL_MS });
    },
    close() {
      closed ??= (async () => {
        // Room streams end at once: their clients reconnect to a replica that stays.
        stopTaskEventsIntoRooms();
        stopStoppingCancelledRuns();
        roomEvents.close();
        await presence?.stop();
        await maintenance.stop();
        await schedules.stop();
        await poller.stop();
        tasks.dispatcher.stop();
        await agents.shutdown();
        await mcp.close();
        await stores.dispose();
      })();
      return closed;
    },
  };
  // Registered before any replica arms its schedules (recover): a cron's fire finds its handler.
  schedules.registerHandler(LANGGRAPH_CRON_TASK_TYPE, langgraphCronFire(context));
  return context;
}

// Read through a function rather than a typed `app.gateway`: augmenting Fastify's types from our
// declarations would clash when a consumer loads both the CommonJS and the ESM build.
const DECORATION = "gateway";

/** Makes `context` readable from `app` ({@link gatewayContextOf}); routes are given their part of it when registered. */
export function decorateGatewayContext(app: FastifyInstance, context: GatewayContext): void {
  app.decorate(DECORATION, context);
}

/** What a gateway serves (its stores, agents, schedules, replica id and logger), for code holding only its Fastify instance: registering tools and model providers on `agents`, tests. */
export function gatewayContextOf(app: FastifyInstance): GatewayContext {
  return app.getDecorator<GatewayContext>(DECORATION);
}
