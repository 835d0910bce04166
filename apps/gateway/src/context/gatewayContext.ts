import { runWebhooks } from "../langgraph/runWebhooks";
import { threadExpirySweep } from "../langgraph/threadExpirySweep";
import { AgentInstanceManager, QUEUE_SWEEP_INTERVAL_MS, type TaskMessageDeps, type TaskRuntimeOptions } from "@axiom-lattice/agent";
import {
  DefaultScheduleClient,
  type Logger,
  MaintenanceLoop,
  type MaintenanceTask,
  OutboxPoller,
  type OutboxPollerStats,
  OutboxRetentionJob,
  ProjectTaskAdmissionNotifier,
  ProjectTaskExecutionMutex,
  type PresenceHeartbeat,
  RetentionJob,
  TaskLifecycleNotifier,
  itemExpirySweep,
  runAsLeader,
  startPresenceHeartbeat,
} from "@axiom-lattice/core";
import {
  MCP_CONFIG_CHANGED_TOPIC,
  PLUGIN_CATALOG_CHANGED_TOPIC,
  PROJECT_TASK_ADMISSION_TOPIC,
  ROOM_EVENT_TOPIC,
  type ReplicaAnnouncement,
  SCHEDULE_CHANGED_TOPIC,
  TASK_LIFECYCLE_TOPIC,
  type TaskItem,
} from "@axiom-lattice/protocols";
import type { FastifyInstance } from "fastify";
import type { GatewayConfig } from "../config";
import { createAgentMessageDelivery } from "../schedules/agentMessageDelivery";
import { McpServerManager } from "../mcp/mcpServerManager";
import { PluginCatalog } from "../plugins/pluginCatalog";
import { GatewayMetrics } from "../metrics/gatewayMetrics";
import { observeLeaseStore, observeOutboxStore } from "../metrics/observedStores";
import { registerPoolGauges } from "../metrics/poolGauges";
import { registerStateGauges } from "../metrics/stateGauges";
import { registerTenantGauges } from "../metrics/tenantGauges";
import { TenantStreams } from "../http/tenantStreams";
import { ProjectRoomEventBroker } from "../rooms/projectRoomEventBroker";
import { ingestRoomEvent, publishRoomEvent } from "../rooms/roomEventSync";
import { publishTaskEventsIntoRooms } from "../rooms/taskEventsIntoRooms";
import { AGENT_MESSAGE_TASK_TYPE, createAgentMessageHandler } from "../schedules/agentMessageHandler";
import { langgraphCronFire } from "../langgraph/cronFire";
import { LANGGRAPH_CRON_TASK_TYPE } from "../langgraph/cronRequest";
import { RecoveryActor, TaskOrphanRecovery } from "../tasks/orphanRecovery";
import { ProjectTaskRuntime } from "../tasks/projectTaskRuntime";
import { cancelTask, stopRunsOfCancelledTasks } from "../tasks/taskCancellation";
import { resumeTask } from "../tasks/taskResumption";
import { GATEWAY_VERSION } from "../version";
import { type GatewayStores, createGatewayStores } from "./gatewayStores";

/**
 * Everything one gateway runs on, built once and handed to every route and component that needs it:
 * nothing of it lives in module state, so several gateways can share a process without meeting.
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
  /** Dispatches project tasks and starts them when their admission is observed. */
  projectTasks: ProjectTaskRuntime;
  /** This replica's MCP servers and the tools they give each tenant's assistants. */
  mcp: McpServerManager;
  /** Each tenant's plugin catalog (the tools its assistants could enable), its settings cached here. */
  plugins: PluginCatalog;
  /** Cancels a task (any kind), resuming a delegating caller. */
  cancelTask(tenantId: string, taskId: string): Promise<TaskItem>;
  /** Resumes an interrupted task's run with the answer to its question. */
  resumeTask(tenantId: string, taskId: string, value: unknown): Promise<TaskItem>;
  /** Deletes completed runs older than `AXIOM_RUN_RETENTION_HOURS`; a task of the maintenance loop. */
  runRetention: RetentionJob;
  /** Deletes runs' logged events older than `AXIOM_RUN_EVENT_RETENTION_HOURS`; a task of the maintenance loop. */
  runEventRetention: RetentionJob;
  /** Fails orphaned tasks (their run died with its replica) and resumes their callers. */
  orphanRecovery: TaskOrphanRecovery;
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
  const stores: GatewayStores = { ...created, lease: observeLeaseStore(created.lease, metrics), outbox: observeOutboxStore(created.outbox, metrics) };
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

  const notifiers = {
    taskLifecycle: new TaskLifecycleNotifier({ outbox, replicaId, logger }),
    projectTaskAdmission: new ProjectTaskAdmissionNotifier({ outbox, replicaId, logger }),
  };
  // One per gateway: its FIFO lock serialises this process's work on a machine, its lease the cluster's.
  // Its lease lives as long as a thread's run lease (renewed while held): a dead holder frees the machine as soon as its threads.
  const projectTaskMachine = new ProjectTaskExecutionMutex({ leaseStore: stores.lease, replicaId, logger, ttlMs: config.runLeaseMs });
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
    mcpTools: (tenantId) => mcp.tenantTools(tenantId),
    logger,
    announce: async (tenantId) => {
      await outbox.append({ topic: PLUGIN_CATALOG_CHANGED_TOPIC, payload: { tenantId }, originReplicaId: replicaId });
    },
  });
  const taskOptions: TaskRuntimeOptions = { store: stores.tasks, events: notifiers.taskLifecycle, machine: projectTaskMachine };
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
    threadRunTtlMs: config.runLeaseMs,
    claimLeaseMs: config.runLeaseMs,
    replicaId,
    logger,
    observer: metrics.observer,
    onRunCompleted: runWebhooks({ agents: (): AgentInstanceManager => agents, threads: stores.threads, egress: config.upstream.egress, logger }),
    tasks: taskOptions,
    tenantTools: (tenantId) => mcp.tenantTools(tenantId),
    disabledTools: (tenantId) => plugins.disabled(tenantId),
  });
  const taskRuns: TaskMessageDeps = { queue, wake: (scope) => agents.wake(scope) };
  const projectTasks = new ProjectTaskRuntime({
    tasks: stores.tasks,
    projects: stores.projects,
    leases: stores.lease,
    machine: projectTaskMachine,
    admissions: notifiers.projectTaskAdmission,
    lifecycle: notifiers.taskLifecycle,
    runs: taskRuns,
    replicaId,
    logger,
  });
  projectTasks.start();
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
  const stopStoppingCancelledRuns = stopRunsOfCancelledTasks({ tasks: taskOptions, agents, lifecycle: notifiers.taskLifecycle });

  const poller = new OutboxPoller({
    store: outbox,
    owner: replicaId,
    log: logger,
    observer: metrics.observer,
    handlers: {
      [TASK_LIFECYCLE_TOPIC]: async (payload) => notifiers.taskLifecycle.deliverFromOutbox(payload),
      [PROJECT_TASK_ADMISSION_TOPIC]: async (payload) => notifiers.projectTaskAdmission.deliverFromOutbox(payload),
      [ROOM_EVENT_TOPIC]: async (payload) => {
        metrics.roomEventsIngested.inc({ outcome: ingestRoomEvent(payload, roomEvents) });
      },
      [MCP_CONFIG_CHANGED_TOPIC]: async (payload) => {
        const { tenantId, serverKey } = (payload ?? {}) as { tenantId?: unknown; serverKey?: unknown };
        if (typeof tenantId !== "string" || typeof serverKey !== "string") return;
        // A server this replica cannot reach stays off here; the others still serve it.
        await mcp.reconcile(tenantId, serverKey).catch((error: unknown) => logger.warn({ err: error, tenantId, serverKey }, "MCP server not reconciled"));
      },
      [PLUGIN_CATALOG_CHANGED_TOPIC]: async (payload) => {
        const tenantId = (payload as { tenantId?: unknown } | null)?.tenantId;
        if (typeof tenantId === "string") plugins.invalidate(tenantId);
      },
      [SCHEDULE_CHANGED_TOPIC]: async (payload) => {
        const taskId = (payload as { taskId?: unknown } | null)?.taskId;
        if (typeof taskId === "string") await schedules.handleScheduleChanged(taskId);
      },
    },
  });
  const orphanRecovery = new TaskOrphanRecovery({
    ...taskRuns,
    tasks: stores.tasks,
    leases: stores.lease,
    events: notifiers.taskLifecycle,
    replicaId,
    logger,
    threadRunTtlMs: config.runLeaseMs,
    machine: projectTaskMachine,
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
    projectTasks.maintenanceTask(config.runLeaseMs),
    itemExpirySweep(stores.items, { logger }),
    threadExpiry,
    ...(config.taskOrphanRecovery ? [orphanRecovery.maintenanceTask(config.runLeaseMs)] : []),
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
    projectTasks,
    mcp,
    plugins,
    cancelTask: (tenantId, taskId) =>
      cancelTask({ tasks: taskOptions, runs: taskRuns, lifecycle: notifiers.taskLifecycle }, tenantId, taskId),
    resumeTask: (tenantId, taskId, value) =>
      resumeTask({ tasks: taskOptions, runs: taskRuns, lifecycle: notifiers.taskLifecycle }, tenantId, taskId, value),
    runRetention,
    runEventRetention,
    orphanRecovery,
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
        orphanedTasks: config.taskOrphanRecovery ? await orphanRecovery.recoverOrphanedTasks(RecoveryActor.SWEEP) : "disabled",
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
        projectTasks.stop();
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

/** Makes `context` what the routes registered on `app` serve. */
export function decorateGatewayContext(app: FastifyInstance, context: GatewayContext): void {
  app.decorate(DECORATION, context);
}

/** What a gateway serves: its stores, agents, schedules, replica id and logger. */
export function gatewayContextOf(app: FastifyInstance): GatewayContext {
  return app.getDecorator<GatewayContext>(DECORATION);
}
