import type { AgentInstanceManager, TaskService } from "@axiom-lattice/agent";
import type {
  DefaultScheduleClient,
  Logger,
  MaintenanceLoop,
  MaintenanceTask,
  OutboxPollerStats,
  ProjectTaskAdmissionNotifier,
  ProjectTaskExecutionMutex,
  RetentionJob,
  TaskLifecycleNotifier,
} from "@axiom-lattice/core";
import type { ReplicaAnnouncement } from "@axiom-lattice/protocols";
import type { FastifyInstance } from "fastify";
import { a2aSubsystem } from "../a2a/a2aSubsystem";
import { agentsSubsystem, queueSweepSubsystem } from "../agents/agentsSubsystem";
import { maintenanceSubsystem } from "../cluster/maintenanceSubsystem";
import { outboxSubsystem } from "../cluster/outboxSubsystem";
import { presenceSubsystem, replicaDescriber } from "../cluster/presenceSubsystem";
import { upkeepSubsystem } from "../cluster/upkeepSubsystem";
import type { GatewayConfig } from "../config";
import { TenantStreams } from "../http/tenantStreams";
import { TenantSubmissions } from "../http/tenantSubmissions";
import { TENANT_SUBMISSIONS_WAITING } from "../defaults";
import type { McpServerManager } from "../mcp/mcpServerManager";
import { mcpSubsystem } from "../mcp/mcpSubsystem";
import type { AssistantToolServer } from "../mcpServer/assistantToolServer";
import { mcpServerSubsystem } from "../mcpServer/mcpServerSubsystem";
import { GatewayMetrics } from "../metrics/gatewayMetrics";
import { observeLeaseStore, observeOutboxStore, observeUnitOfWork } from "../metrics/observedStores";
import { registerPoolGauges } from "../metrics/poolGauges";
import { registerStateGauges } from "../metrics/stateGauges";
import { registerTenantGauges } from "../metrics/tenantGauges";
import type { PluginCatalog } from "../plugins/pluginCatalog";
import { pluginsSubsystem } from "../plugins/pluginsSubsystem";
import type { ProjectRoomEventBroker } from "../rooms/projectRoomEventBroker";
import { roomsSubsystem, taskEventsIntoRoomsSubsystem } from "../rooms/roomsSubsystem";
import { schedulesSubsystem } from "../schedules/schedulesSubsystem";
import { type GatewayGraphs, graphsSubsystem } from "../graphs/graphsSubsystem";
import { type GatewayStores, createGatewayStores } from "../stores/gatewayStores";
import { cancelledRunsSubsystem, tasksSubsystem } from "../tasks/tasksSubsystem";
import type { WebAppRuntime } from "../webApps/webAppRuntime";
import { webAppsSubsystem } from "../webApps/webAppsSubsystem";
import { GATEWAY_VERSION } from "../version";
import { LateBound } from "./lateBound";
import { outboxAnnouncer } from "./outboxAnnounce";
import { recoverGateway } from "./startupRecovery";
import { type Subsystem, maintenanceTasksOf, outboxHandlersOfSubsystems, subsystemLifecycle } from "./subsystem";

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
  /** The graphs served: the ReAct agent and the operator's (`AXIOM_LANGGRAPH_CONFIG`). */
  graphs: GatewayGraphs;
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
  /** The run submissions each tenant has under way on this replica, within `AXIOM_TENANT_MAX_RUN_SUBMISSIONS`. */
  submissions: TenantSubmissions;
  /** Agent web apps' runtime: end users' identities and their threads. */
  webApps: WebAppRuntime;
  /** The assistants as MCP tools (`POST /mcp`). */
  assistantTools: AssistantToolServer;
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

/**
 * The order `close` stops the subsystems in. Room streams end at once (with the task events feeding
 * them): their clients reconnect to a replica that stays. Then this replica withdraws its presence
 * and hands work over (maintenance, schedules), stops hearing peers, stops taking tasks and runs, and
 * closes its MCP servers and stores last, once nothing uses them.
 */
export const GATEWAY_STOP_ORDER = [
  "task-events-into-rooms",
  "cancelled-runs",
  "rooms",
  "presence",
  "maintenance",
  "schedules",
  "outbox",
  "tasks",
  "agents",
  "mcp",
  "stores",
] as const;

export async function createGatewayContext(config: GatewayConfig, logger: Logger): Promise<GatewayContext> {
  return (await composeGateway(config, logger)).context;
}

/** A gateway's context and the subsystems it is composed of, in list order (tests read them). */
export interface ComposedGateway {
  context: GatewayContext;
  subsystems: readonly Subsystem[];
}

/**
 * The composition root: builds each subsystem on those listed before it, the outbox poller and the
 * maintenance loop on what the subsystems before them handle and do. Background work starts in list
 * order; `close` stops in {@link GATEWAY_STOP_ORDER}.
 */
export async function composeGateway(config: GatewayConfig, logger: Logger): Promise<ComposedGateway> {
  const { replicaId } = config;
  const startedAt = new Date();
  const metrics = new GatewayMetrics();
  const stores = await observedStores(config, logger, metrics);
  warnOfUnsafeSettings(config, stores, logger);
  const announce = outboxAnnouncer(stores.outbox, replicaId);
  // Built on the task service and the plugin catalog, which call it back once the gateway runs.
  const agentRuntime = new LateBound<AgentInstanceManager>("The agent runtime");
  const { streams, submissions } = tenantLimits(config, metrics);

  const subsystems: Subsystem[] = [];
  const add = <S extends Subsystem>(subsystem: S): S => {
    subsystems.push(subsystem);
    return subsystem;
  };
  add({ name: "stores", stop: () => stores.dispose() });
  const { graphs } = add(await graphsSubsystem({ config, stores, logger }));
  const tasks = add(tasksSubsystem(config, stores, logger, (scope) => agentRuntime.get().wake(scope)));
  const { mcp } = add(mcpSubsystem({ config, stores, logger, announce }));
  const { plugins } = add(pluginsSubsystem({ stores, logger, announce, mcp, registeredTools: () => agentRuntime.get().tools.list() }));
  const a2a = add(a2aSubsystem({ stores, config, logger, agents: agentRuntime }));
  const { agents } = add(agentsSubsystem({ config, stores, logger, metrics, tasks: tasks.service, mcp, plugins, graphs, handle: agentRuntime, onRunCompleted: a2a.onRunCompleted }));
  const { schedules } = add(schedulesSubsystem({ config, stores, logger, metrics, announce, agents, mcp, plugins, graphs }));
  const { webApps } = add(webAppsSubsystem({ stores, agents, announce }));
  const { assistantTools } = add(mcpServerSubsystem({ stores, agents, logger, metrics, submissions, tenantQueueLimit: config.tenantLimits.maxQueuedMessages || undefined }));
  const { roomEvents } = add(roomsSubsystem({ outbox: stores.outbox, replicaId, logger, metrics }));
  add(taskEventsIntoRoomsSubsystem({ lifecycle: tasks.notifiers.taskLifecycle, rooms: stores.rooms, broker: roomEvents, logger }));
  add(cancelledRunsSubsystem({ tasks, agents }));
  const { poller } = add(outboxSubsystem({ store: stores.outbox, replicaId, logger, metrics, handlers: outboxHandlersOfSubsystems(subsystems) }));
  const upkeep = add(upkeepSubsystem({ config, stores, logger, tasks: tasks.service, agents }));
  const { maintenance } = add(
    maintenanceSubsystem({ store: stores.lease, tasks: maintenanceTasksOf(subsystems), intervalMs: config.maintenanceIntervalMs, replicaId, logger }),
  );
  const outboxStats = () => poller.stats();
  registerGauges(config, stores, metrics, { agents, outboxStats, streams, submissions });
  const storeMode = stores.kind === "postgres" ? "postgresql" : "memory";
  const activeRuns = () => agents.stats().runningThreads;
  const describeReplica = replicaDescriber({
    replicaId,
    version: GATEWAY_VERSION,
    startedAt,
    storeMode,
    role: config.role,
    keyVersions: config.secrets.keyring.versions,
    activeRuns,
    outboxStats,
  });
  add(presenceSubsystem({ store: stores.presence, describe: describeReplica, intervalMs: config.presenceIntervalMs, logger }));
  add(queueSweepSubsystem(config, agents));

  const recover = () => recoverGateway({ config, logger, leases: stores.lease, poller, mcp, tasks: tasks.service, schedules });
  const { runRetention, runEventRetention, threadExpiry } = upkeep;
  const { notifiers, machine: projectTaskMachine } = tasks;
  const context: GatewayContext = {
    config,
    replicaId,
    logger,
    stores,
    graphs,
    agents,
    schedules,
    roomEvents,
    notifiers,
    projectTaskMachine,
    tasks: tasks.service,
    mcp,
    plugins,
    runRetention,
    runEventRetention,
    threadExpiry,
    maintenance,
    metrics,
    streams,
    submissions,
    webApps,
    assistantTools,
    outboxStats,
    describeReplica,
    recover,
    ...subsystemLifecycle(subsystems, GATEWAY_STOP_ORDER),
  };
  return { context, subsystems };
}

/** The gateway's stores, counted: every component gets these, so each acquisition and append anywhere is seen. */
async function observedStores(config: GatewayConfig, logger: Logger, metrics: GatewayMetrics): Promise<GatewayStores> {
  const created = await createGatewayStores(config.databaseUrl, logger, config.secrets.keyring, config.database);
  return {
    ...created,
    lease: observeLeaseStore(created.lease, metrics),
    outbox: observeOutboxStore(created.outbox, metrics),
    inTransaction: observeUnitOfWork(created, metrics),
  };
}

function warnOfUnsafeSettings(config: GatewayConfig, stores: GatewayStores, logger: Logger): void {
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
}

/** The tenants' stream and submission limits, each refusal counted. */
function tenantLimits(config: GatewayConfig, metrics: GatewayMetrics): { streams: TenantStreams; submissions: TenantSubmissions } {
  const streams = new TenantStreams(config.tenantLimits.maxStreams, (tenant) => metrics.tenantRefusals.inc({ tenant, reason: "too_many_streams" }));
  const submissions = new TenantSubmissions(config.tenantLimits.maxRunSubmissions, TENANT_SUBMISSIONS_WAITING, (tenant) =>
    metrics.tenantRefusals.inc({ tenant, reason: "too_many_submissions" }),
  );
  return { streams, submissions };
}

/** Registers the gauges read at each scrape. */
function registerGauges(
  config: GatewayConfig,
  stores: GatewayStores,
  metrics: GatewayMetrics,
  { agents, outboxStats, streams, submissions }: { agents: AgentInstanceManager; outboxStats: () => OutboxPollerStats; streams: TenantStreams; submissions: TenantSubmissions },
): void {
  metrics.replicaRole.set({ role: config.role }, 1);
  registerStateGauges(metrics, { agents, queue: stores.queue, outboxStats });
  if (stores.pool) registerPoolGauges(metrics, stores.pool);
  registerTenantGauges(metrics, { agents, streams, submissions });
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
