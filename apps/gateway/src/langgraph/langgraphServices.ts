import type { AgentInstanceManager } from "@axiom-lattice/agent";
import type { DefaultScheduleClient, Logger } from "@axiom-lattice/core";
import type { GatewayConfig } from "../config";
import type { TenantStreams } from "../http/tenantStreams";
import type { McpServerManager } from "../mcp/mcpServerManager";
import type { GatewayGraphs } from "../graphs/graphsSubsystem";
import type { TenantSubmissions } from "../http/tenantSubmissions";
import type { GatewayMetrics } from "../metrics/gatewayMetrics";
import type { PluginCatalog } from "../plugins/pluginCatalog";
import type { GatewayStores } from "../stores/gatewayStores";

/**
 * What the LangGraph API is served from: the gateway's own stores and runtime. Each of its route
 * plugins and helpers names the part it uses.
 */
export interface LanggraphServices {
  stores: GatewayStores;
  /** The graphs served and their default assistants. */
  graphs: GatewayGraphs;
  agents: AgentInstanceManager;
  config: GatewayConfig;
  logger: Logger;
  /** The scheduler its crons are schedules of. */
  schedules: DefaultScheduleClient;
  /** The tenants' MCP tools and plugin settings, which an assistant's tools are checked against. */
  mcp: McpServerManager;
  plugins: PluginCatalog;
  streams: TenantStreams;
  /** Holds each tenant's run submissions under way (a request's; the gateway's own cron fires are not held). */
  submissions?: TenantSubmissions;
  metrics: GatewayMetrics;
}
