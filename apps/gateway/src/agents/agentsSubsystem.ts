import { AgentInstanceManager, type CompletedRun, QUEUE_SWEEP_INTERVAL_MS, type TaskService } from "@axiom-lattice/agent";
import type { Logger } from "@axiom-lattice/core";
import type { GatewayConfig } from "../config";
import type { LateBound } from "../context/lateBound";
import type { Subsystem } from "../context/subsystem";
import { runWebhooks } from "../langgraph/runWebhooks";
import type { McpServerManager } from "../mcp/mcpServerManager";
import type { GatewayGraphs } from "../graphs/graphsSubsystem";
import type { GatewayMetrics } from "../metrics/gatewayMetrics";
import type { PluginCatalog } from "../plugins/pluginCatalog";
import { loggingRunEnds } from "./runEndLog";
import type { GatewayStores } from "../stores/gatewayStores";

export interface AgentsSubsystem extends Subsystem {
  agents: AgentInstanceManager;
}

/**
 * The agent runtime: runs the queued messages of threads (unless this is an `api` replica), with the
 * tasks' tools, each tenant's MCP tools and without the plugins it switched off. Bound to `handle`,
 * through which what was built before it (the task service, the plugin catalog) reaches it.
 */
export function agentsSubsystem({
  config,
  stores,
  logger,
  metrics,
  tasks,
  mcp,
  plugins,
  graphs,
  handle,
  onRunCompleted,
}: {
  config: GatewayConfig;
  stores: GatewayStores;
  logger: Logger;
  metrics: GatewayMetrics;
  tasks: TaskService;
  mcp: McpServerManager;
  plugins: PluginCatalog;
  graphs: GatewayGraphs;
  handle: LateBound<AgentInstanceManager>;
  /** Told of every run this replica ends, after the LangGraph dialect's webhooks (the A2A dialect's push notifications). */
  onRunCompleted: (run: CompletedRun) => void;
}): AgentsSubsystem {
  const webhooks = runWebhooks({ agents: () => handle.get(), threads: stores.threads, egress: config.upstream.egress, logger });
  const agents = new AgentInstanceManager({
    queue: stores.queue,
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
    // Either bundle's stores are joined (one database, or one process's stores).
    joinedStores: true,
    runEventFlushMs: config.runEventFlushMs,
    maxConcurrentRuns: config.maxConcurrentRuns,
    // An api replica leaves every run to the workers and tells them at once, as it never takes the
    // thread itself (the delay only lets an enqueuing replica that runs messages go first); a worker
    // tells its peers at once of what it enqueues (task and schedule messages).
    executeRuns: config.role !== "api",
    peerWakeDelayMs: config.role === "worker" ? 0 : config.peerWakeDelayMs,
    maxConcurrentRunsPerTenant: config.tenantLimits.maxConcurrentRuns,
    upstream: config.upstream,
    openAiApiKey: config.openAiApiKey,
    threadRunTtlMs: config.runLeaseMs,
    claimLeaseMs: config.runLeaseMs,
    replicaId: config.replicaId,
    logger,
    observer: loggingRunEnds(metrics.observer, logger),
    onRunCompleted: (run) => {
      webhooks(run);
      onRunCompleted(run);
    },
    tasks: tasks.runtime,
    tenantTools: (tenantId) => mcp.tenantTools(tenantId),
    disabledTools: (tenantId) => plugins.disabled(tenantId),
    ...(graphs.deployed ? { graphs: graphs.deployed } : {}),
  });
  handle.bind(agents);
  return { name: "agents", agents, stop: () => agents.shutdown() };
}

/**
 * Every replica that runs messages sweeps the queue for claims whose holder died; started last in
 * `startBackground`, stopped with the agent runtime.
 */
export function queueSweepSubsystem(config: Pick<GatewayConfig, "role">, agents: AgentInstanceManager): Subsystem {
  if (config.role === "api") return { name: "queue-sweep" };
  return {
    name: "queue-sweep",
    start: () => {
      agents.startQueueSweep({ intervalMs: QUEUE_SWEEP_INTERVAL_MS });
    },
  };
}
