import { type EgressPolicy, egressFetch, findEgressRefusal } from "@axiom-lattice/core";
import type { McpServerConfig } from "@axiom-lattice/protocols";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { DEFAULT_MCP_TIMEOUT_MS } from "../defaults";
import { GATEWAY_VERSION } from "../version";

/** A tool an MCP server offers, as it describes it. */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** What one tool call answered: its text, and whether the tool itself reported a failure. */
export interface McpToolOutcome {
  text: string;
  isError: boolean;
}

const transportFor = (config: McpServerConfig, egress: EgressPolicy): Transport =>
  config.transport === "stdio"
    ? // The child gets the SDK's default environment (getDefaultEnvironment(): PATH, HOME, …) with the
      // configured env over it, never the gateway's own secrets; its stderr is dropped so a chatty
      // server cannot flood the gateway's log.
      new StdioClientTransport({ command: config.command!, args: config.args ?? [], env: config.env, stderr: "ignore" })
    : // Every request, and every redirect it follows, connects only where the egress policy allows.
      new StreamableHTTPClientTransport(new URL(config.url!), { fetch: egressFetch(egress), requestInit: { headers: config.headers } });

const textOf = (content: unknown): string =>
  (Array.isArray(content) ? content : [])
    .map((part: { type?: string; text?: string }) => (part.type === "text" && typeof part.text === "string" ? part.text : JSON.stringify(part)))
    .join("\n");

/**
 * One live MCP client session. Every request is bounded by the configuration's `timeout`: a server
 * that hangs fails the request instead of holding it, and one that exits fails every pending request
 * at once (the SDK rejects them when the transport closes).
 */
export class McpConnection {
  private closedByUs = false;

  private constructor(
    private readonly client: Client,
    readonly timeoutMs: number,
  ) {}

  /**
   * Connects (trying `retryAttempts` more times on failure; never a target `egress` refuses); `onLost`
   * hears of a connection lost later.
   */
  static async open(config: McpServerConfig, egress: EgressPolicy, onLost: () => void): Promise<McpConnection> {
    const timeoutMs = config.timeout ?? DEFAULT_MCP_TIMEOUT_MS;
    let failure: unknown;
    for (let attempt = 0; attempt <= (config.retryAttempts ?? 0); attempt += 1) {
      const client = new Client({ name: "lattice-gateway", version: GATEWAY_VERSION });
      const connection = new McpConnection(client, timeoutMs);
      try {
        await client.connect(transportFor(config, egress), { timeout: timeoutMs });
        client.onclose = () => {
          if (!connection.closedByUs) onLost();
        };
        return connection;
      } catch (error) {
        failure = error;
        await connection.close();
        // A target the egress policy refused would be refused again.
        if (findEgressRefusal(error)) break;
      }
    }
    throw failure;
  }

  async listTools(): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor === undefined ? {} : { cursor }, { timeout: this.timeoutMs });
      tools.push(...page.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<McpToolOutcome> {
    const result = await this.client.callTool({ name, arguments: args }, undefined, { timeout: this.timeoutMs });
    return { text: textOf(result.content), isError: result.isError === true };
  }

  async close(): Promise<void> {
    this.closedByUs = true;
    await this.client.close().catch(() => undefined);
  }
}
