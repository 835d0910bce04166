import type { Logger } from "@axiom-lattice/core";
import { PLUGIN_CATALOG_CHANGED_TOPIC } from "@axiom-lattice/protocols";
import type { OutboxAnnounce } from "../context/outboxAnnounce";
import type { Subsystem } from "../context/subsystem";
import type { McpServerManager } from "../mcp/mcpServerManager";
import type { GatewayStores } from "../stores/gatewayStores";
import { PluginCatalog, type PluginCatalogOptions } from "./pluginCatalog";

export interface PluginsSubsystem extends Subsystem {
  plugins: PluginCatalog;
}

/**
 * Each tenant's plugin catalog, over the agent runtime's registered tools (`registeredTools`, read
 * when the catalog is) and the tenant's MCP tools. A change of settings is announced; each peer drops
 * its cached catalog of that tenant.
 */
export function pluginsSubsystem({
  stores,
  logger,
  announce,
  mcp,
  registeredTools,
}: {
  stores: Pick<GatewayStores, "pluginSettings">;
  logger: Logger;
  announce: OutboxAnnounce;
  mcp: McpServerManager;
  registeredTools: PluginCatalogOptions["registeredTools"];
}): PluginsSubsystem {
  const plugins = new PluginCatalog({
    settings: stores.pluginSettings,
    registeredTools,
    mcpTools: (tenantId) => mcp.tenantTools(tenantId),
    logger,
    announce: (tenantId) => announce(PLUGIN_CATALOG_CHANGED_TOPIC, { tenantId }),
  });
  return { name: "plugins", plugins, outboxHandlers: plugins.outboxHandlers() };
}
