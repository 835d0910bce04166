import type { AgentInstanceManager } from "@axiom-lattice/agent";
import { DefaultScheduleClient, type Logger } from "@axiom-lattice/core";
import { SCHEDULE_CHANGED_TOPIC } from "@axiom-lattice/protocols";
import type { GatewayConfig } from "../config";
import type { GatewayGraphs } from "../graphs/graphsSubsystem";
import type { OutboxAnnounce } from "../context/outboxAnnounce";
import type { Subsystem } from "../context/subsystem";
import { langgraphCronFire } from "../langgraph/cronFire";
import { LANGGRAPH_CRON_TASK_TYPE } from "../langgraph/cronRequest";
import type { McpServerManager } from "../mcp/mcpServerManager";
import type { GatewayMetrics } from "../metrics/gatewayMetrics";
import type { PluginCatalog } from "../plugins/pluginCatalog";
import type { GatewayStores } from "../stores/gatewayStores";
import { createAgentMessageDelivery } from "./agentMessageDelivery";
import { AGENT_MESSAGE_TASK_TYPE, createAgentMessageHandler } from "./agentMessageHandler";

export interface SchedulesSubsystem extends Subsystem {
  schedules: DefaultScheduleClient;
}

/**
 * The scheduler, with the handlers of what it fires: scheduled agent messages and LangGraph crons. A
 * change is announced; each peer refreshes its timers. Its upkeep runs on the maintenance leader.
 */
export function schedulesSubsystem(gateway: {
  config: GatewayConfig;
  stores: GatewayStores;
  logger: Logger;
  metrics: GatewayMetrics;
  announce: OutboxAnnounce;
  agents: AgentInstanceManager;
  mcp: McpServerManager;
  plugins: PluginCatalog;
  graphs: GatewayGraphs;
}): SchedulesSubsystem {
  const { config, stores, agents } = gateway;
  const schedules = new DefaultScheduleClient({
    store: stores.schedules,
    replicaId: config.replicaId,
    logger: gateway.logger,
    heartbeatIntervalMs: config.scheduleHeartbeatMs,
    observer: gateway.metrics.observer,
    onChange: (taskId) => gateway.announce(SCHEDULE_CHANGED_TOPIC, { taskId }),
  });
  schedules.registerHandler(
    AGENT_MESSAGE_TASK_TYPE,
    createAgentMessageHandler(createAgentMessageDelivery({ agents, assistants: stores.assistants, threads: stores.threads })),
  );
  // Registered before any replica arms its schedules (recover): a cron's fire finds its handler.
  schedules.registerHandler(LANGGRAPH_CRON_TASK_TYPE, langgraphCronFire({ ...gateway, schedules }));
  return {
    name: "schedules",
    schedules,
    outboxHandlers: schedules.outboxHandlers(),
    maintenanceTasks: schedules.maintenanceTasks(),
    stop: () => schedules.stop(),
  };
}
