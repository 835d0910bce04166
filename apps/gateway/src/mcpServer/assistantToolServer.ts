import { type CallToolResult, ErrorCode, type ListToolsResult, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Principal } from "../auth/principal";
import type { GatewayStores } from "../stores/gatewayStores";
import { type AssistantCallControl, type AssistantCallDependencies, callAssistant } from "./assistantCall";
import { findAssistantTool, listAssistantTools, toolInput } from "./assistantTools";

export interface AssistantToolServerOptions extends AssistantCallDependencies {
  stores: Pick<GatewayStores, "assistants" | "threads">;
}

/**
 * What `/mcp` serves, whoever calls: a principal's tools (its tenant's assistants it may use) and
 * calls of them. Holds nothing between requests: every replica answers every request alike.
 */
export class AssistantToolServer {
  constructor(private readonly options: AssistantToolServerOptions) {}

  list(principal: Principal, cursor?: string): Promise<ListToolsResult> {
    return listAssistantTools(this.options.stores, principal, cursor);
  }

  /**
   * Runs the assistant whose tool `name` is. An unknown tool (or one the principal may not use, or of
   * another tenant) and arguments not as the tool's input schema says are invalid params, refused
   * before anything is stored.
   */
  async call(principal: Principal, name: string, args: unknown, control: AssistantCallControl): Promise<CallToolResult> {
    const input = toolInput.safeParse(args ?? {});
    const assistant = await findAssistantTool(this.options.stores, principal, name);
    if (!assistant) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    if (!input.success) throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for tool ${name}: ${z.prettifyError(input.error)}`);
    return callAssistant(this.options, principal, assistant, input.data, control);
  }
}
