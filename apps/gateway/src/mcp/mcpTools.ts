import type { StructuredToolInterface } from "@langchain/core/tools";
import { tool } from "@langchain/core/tools";
import type { McpToolInfo, McpToolOutcome } from "./mcpConnection";

/** Separates a server's key from its tool's name; keys cannot contain it. */
export const MCP_TOOL_SEPARATOR = "__";

/** The name assistants use for tool `toolName` of server `serverKey`. */
export const mcpToolName = (serverKey: string, toolName: string) => `${serverKey}${MCP_TOOL_SEPARATOR}${toolName}`;

/**
 * The LangChain tool that calls an MCP tool through `call`. A failure (the tool's own, a timeout, a
 * server gone) is thrown: the graph's tool node turns it into an error tool message for the model,
 * so the run goes on instead of failing or waiting.
 */
export function mcpTool(serverKey: string, info: McpToolInfo, call: (name: string, args: Record<string, unknown>) => Promise<McpToolOutcome>): StructuredToolInterface {
  const name = mcpToolName(serverKey, info.name);
  return tool(
    async (args: Record<string, unknown>) => {
      const outcome = await call(info.name, args ?? {});
      if (outcome.isError) throw new Error(`MCP tool ${name} failed: ${outcome.text}`);
      return outcome.text;
    },
    { name, description: info.description ?? `Tool ${info.name} of MCP server ${serverKey}`, schema: { type: "object", ...info.inputSchema } },
  ) as StructuredToolInterface;
}
