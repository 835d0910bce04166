import type { Subsystem } from "../context/subsystem";
import { AssistantToolServer, type AssistantToolServerOptions } from "./assistantToolServer";

export interface McpServerSubsystem extends Subsystem {
  assistantTools: AssistantToolServer;
}

/**
 * The gateway as an MCP server (`POST /mcp`): each assistant a tool, a call a run. Stateless, so it
 * hears no peer, keeps no upkeep and runs nothing in the background: the tool list is the assistant
 * store, and a call's run is the engine's like any other.
 */
export function mcpServerSubsystem(options: AssistantToolServerOptions): McpServerSubsystem {
  return { name: "mcp-server", assistantTools: new AssistantToolServer(options) };
}
