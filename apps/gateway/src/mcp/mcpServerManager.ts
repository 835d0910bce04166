import type { Logger, OutboxTopicHandlers } from "@axiom-lattice/core";
import { MCP_CONFIG_CHANGED_TOPIC, type McpServerConfig, type McpServerConfigEntry, type McpServerConfigStore } from "@axiom-lattice/protocols";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { McpConnection, type McpToolInfo, type McpToolOutcome } from "./mcpConnection";
import { type McpTargetPolicy, checkMcpTarget } from "./mcpTarget";
import { mcpTool, mcpToolName } from "./mcpTools";

export interface McpServerManagerOptions {
  store: McpServerConfigStore;
  logger: Logger;
  /** Tells the peers a server's configuration or status changed (the outbox), after a status write here. */
  announce(tenantId: string, serverKey: string): Promise<void>;
  /**
   * Where servers may be, checked at every connection (a configuration stored before the policy
   * changed is refused too). Default: anywhere; the gateway passes its configured policy.
   */
  targets?: McpTargetPolicy;
}

interface LiveServer {
  /** The configuration connected with: a changed one reconnects. */
  configJson: string;
  connection: McpConnection;
  listed: McpToolInfo[];
  tools: Map<string, StructuredToolInterface>;
}

// Without a policy, as without authentication: any command, and urls on this machine and its networks.
const ANYWHERE_LOCAL: McpTargetPolicy = { egress: { localNetworks: true }, stdioAllow: "any" };

const slot = (tenantId: string, serverKey: string) => `${tenantId}\u0000${serverKey}`;

/** A tool an MCP server offers, as `GET /api/mcp-configs/:key/tools` shows it. */
export interface OfferedTool extends McpToolInfo {
  /** The name assistants list it by: `<server key>__<tool>`. */
  fullName: string;
  /** Whether the server's `selectedTools` (none: all) make it the tenant's. */
  selected: boolean;
}

/**
 * This replica's MCP servers, per tenant: their live connections and the tools assistants may use.
 * The store is the truth; {@link reconcile} brings one server here in line with it (missing or not
 * `connected` → removed; otherwise connected and its selected tools registered). A server that fails
 * while in use gets the status `error`, which every replica then reconciles to.
 */
export class McpServerManager {
  private readonly live = new Map<string, LiveServer>();
  /** One reconcile of a server at a time: an outbox delivery and a request never interleave. */
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(private readonly options: McpServerManagerOptions) {}

  /** Refuses a server configuration the policy does not allow (see {@link McpServerManagerOptions.targets}). */
  checkTarget(config: McpServerConfig): Promise<void> {
    return checkMcpTarget(config, this.targets);
  }

  private get targets(): McpTargetPolicy {
    return this.options.targets ?? ANYWHERE_LOCAL;
  }

  /** The tools of the tenant's connected servers, by name (`<serverKey>__<tool>`). */
  tenantTools(tenantId: string): ReadonlyMap<string, StructuredToolInterface> {
    const prefix = slot(tenantId, "");
    const tools = new Map<string, StructuredToolInterface>();
    for (const [key, server] of this.live) if (key.startsWith(prefix)) for (const [name, found] of server.tools) tools.set(name, found);
    return tools;
  }

  /**
   * The tools the server offers, as listed when it connected here, each with the name assistants give
   * it and whether the server's `selectedTools` let them; `undefined` when it is not connected here.
   */
  offeredTools(tenantId: string, serverKey: string): OfferedTool[] | undefined {
    const server = this.live.get(slot(tenantId, serverKey));
    return server?.listed.map((info) => {
      const fullName = mcpToolName(serverKey, info.name);
      return { ...info, fullName, selected: server.tools.has(fullName) };
    });
  }

  /** A peer changed a server's configuration or status: reconcile it here. */
  outboxHandlers(): OutboxTopicHandlers {
    return {
      [MCP_CONFIG_CHANGED_TOPIC]: async ({ tenantId, serverKey }) => {
        // A server this replica cannot reach stays off here; the others still serve it.
        await this.reconcile(tenantId, serverKey).catch((error: unknown) => this.options.logger.warn({ err: error, tenantId, serverKey }, "MCP server not reconciled"));
      },
    };
  }

  /** Brings the server in line with the store; throws when it should be connected and cannot be. */
  reconcile(tenantId: string, serverKey: string): Promise<void> {
    return this.serially(tenantId, serverKey, async () => {
      const entry = await this.options.store.get(tenantId, serverKey);
      if (!entry || entry.status !== "connected") return this.remove(tenantId, serverKey);
      await this.bringUp(entry);
    });
  }

  /**
   * Connects the server here and only then records it `connected`; one that cannot be reached is
   * recorded `error` and the failure thrown. Either way the peers are told.
   */
  connect(tenantId: string, serverKey: string): Promise<McpServerConfigEntry | null> {
    return this.serially(tenantId, serverKey, async () => {
      const entry = await this.options.store.get(tenantId, serverKey);
      if (!entry) return null;
      try {
        await this.bringUp(entry);
      } catch (error) {
        await this.recordStatus(tenantId, serverKey, "error");
        throw error;
      }
      return this.recordStatus(tenantId, serverKey, "connected");
    });
  }

  /** Records the server `disconnected` and drops it here; the peers drop it on the announcement. */
  disconnect(tenantId: string, serverKey: string): Promise<McpServerConfigEntry | null> {
    return this.serially(tenantId, serverKey, async () => {
      const entry = await this.recordStatus(tenantId, serverKey, "disconnected");
      await this.remove(tenantId, serverKey);
      return entry;
    });
  }

  /**
   * After a write of the server's configuration: brought in line here and the peers told. A connected
   * server that can no longer be reached becomes `error` (and the peers drop it).
   */
  async applied(tenantId: string, serverKey: string): Promise<void> {
    try {
      await this.reconcile(tenantId, serverKey);
      await this.options.announce(tenantId, serverKey);
    } catch (error) {
      this.options.logger.warn({ err: error, tenantId, serverKey }, "MCP server not reachable after its change; status set to error");
      await this.serially(tenantId, serverKey, () => this.recordStatus(tenantId, serverKey, "error"));
    }
  }

  /** Startup: reconciles every connected server of every tenant; one that fails is logged, not fatal. */
  async restore(): Promise<{ restored: number; failed: number }> {
    const outcomes = await Promise.allSettled(
      (await this.options.store.listConnected()).map(async ({ tenantId, key }) => {
        try {
          await this.reconcile(tenantId, key);
        } catch (error) {
          this.options.logger.warn({ err: error, tenantId, serverKey: key }, "MCP server not restored");
          throw error;
        }
      }),
    );
    return { restored: outcomes.filter((outcome) => outcome.status === "fulfilled").length, failed: outcomes.filter((outcome) => outcome.status === "rejected").length };
  }

  /** Closes every connection (shutdown). */
  async close(): Promise<void> {
    const servers = [...this.live.values()];
    this.live.clear();
    await Promise.all(servers.map((server) => server.connection.close()));
  }

  private async bringUp(entry: McpServerConfigEntry): Promise<void> {
    const key = slot(entry.tenantId, entry.key);
    const configJson = JSON.stringify(entry.config);
    let server = this.live.get(key);
    if (server?.configJson !== configJson) {
      await this.remove(entry.tenantId, entry.key);
      await this.checkTarget(entry.config);
      const connection = await McpConnection.open(entry.config, this.targets.egress, () => void this.fail(entry.tenantId, entry.key, connection, "connection lost"));
      try {
        server = { configJson, connection, listed: await connection.listTools(), tools: new Map() };
      } catch (error) {
        await connection.close();
        throw error;
      }
      this.live.set(key, server);
    }
    const live = server;
    // No selection means every tool the server offers.
    const selected = entry.selectedTools.length === 0 ? live.listed : live.listed.filter((info) => entry.selectedTools.includes(info.name));
    live.tools = new Map(
      selected.map((info) => {
        const made = mcpTool(entry.key, info, (name, args) => this.call(entry.tenantId, entry.key, live.connection, name, args));
        return [made.name, made];
      }),
    );
  }

  private async call(tenantId: string, serverKey: string, connection: McpConnection, name: string, args: Record<string, unknown>): Promise<McpToolOutcome> {
    try {
      return await connection.callTool(name, args);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      void this.fail(tenantId, serverKey, connection, reason);
      throw new Error(`MCP server ${serverKey} failed on ${name} (${reason}); its status is now error`);
    }
  }

  /** A server that hung or went away: dropped here, recorded `error` for every replica. */
  private async fail(tenantId: string, serverKey: string, connection: McpConnection, reason: string): Promise<void> {
    if (this.live.get(slot(tenantId, serverKey))?.connection !== connection) return;
    this.options.logger.warn({ tenantId, serverKey, reason }, "MCP server failed; status set to error");
    try {
      await this.serially(tenantId, serverKey, async () => {
        if (this.live.get(slot(tenantId, serverKey))?.connection !== connection) return;
        await this.remove(tenantId, serverKey);
        await this.recordStatus(tenantId, serverKey, "error");
      });
    } catch (error) {
      this.options.logger.error({ err: error, tenantId, serverKey }, "MCP server status not recorded");
    }
  }

  private async recordStatus(tenantId: string, serverKey: string, status: McpServerConfigEntry["status"]): Promise<McpServerConfigEntry | null> {
    const entry = await this.options.store.update(tenantId, serverKey, { status });
    if (entry) await this.options.announce(tenantId, serverKey);
    return entry;
  }

  private async remove(tenantId: string, serverKey: string): Promise<void> {
    const key = slot(tenantId, serverKey);
    const server = this.live.get(key);
    this.live.delete(key);
    await server?.connection.close();
  }

  private serially<T>(tenantId: string, serverKey: string, work: () => Promise<T>): Promise<T> {
    const key = slot(tenantId, serverKey);
    const previous = this.pending.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    const settled = next.catch(() => undefined);
    this.pending.set(key, settled);
    void settled.then(() => {
      if (this.pending.get(key) === settled) this.pending.delete(key);
    });
    return next;
  }
}
