import type { Logger } from "@axiom-lattice/core";
import { MCP_CONFIG_CHANGED_TOPIC } from "@axiom-lattice/protocols";
import type { GatewayConfig } from "../config";
import type { OutboxAnnounce } from "../context/outboxAnnounce";
import type { Subsystem } from "../context/subsystem";
import type { GatewayStores } from "../stores/gatewayStores";
import { McpServerManager } from "./mcpServerManager";

export interface McpSubsystem extends Subsystem {
  mcp: McpServerManager;
}

/** This replica's MCP servers: a change made here is announced, and each peer reconciles that server from the store. */
export function mcpSubsystem({
  config,
  stores,
  logger,
  announce,
}: {
  config: Pick<GatewayConfig, "upstream" | "mcpStdioAllow">;
  stores: Pick<GatewayStores, "mcp">;
  logger: Logger;
  announce: OutboxAnnounce;
}): McpSubsystem {
  const mcp = new McpServerManager({
    store: stores.mcp,
    logger,
    targets: { egress: config.upstream.egress, stdioAllow: config.mcpStdioAllow },
    announce: (tenantId, serverKey) => announce(MCP_CONFIG_CHANGED_TOPIC, { tenantId, serverKey }),
  });
  return { name: "mcp", mcp, outboxHandlers: mcp.outboxHandlers(), stop: () => mcp.close() };
}
