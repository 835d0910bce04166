import type { TenantToolSource } from "@axiom-lattice/agent";
import { type Logger, type OutboxTopicHandlers, comparePageKeys, readAllPages } from "@axiom-lattice/core";
import { PLUGIN_CATALOG_CHANGED_TOPIC, type PluginSettingStore } from "@axiom-lattice/protocols";
import type { StructuredToolInterface } from "@langchain/core/tools";

/** A tool a tenant's assistants could enable, and whether the tenant lets them. */
export interface PluginEntry {
  name: string;
  /** `builtin`: a process-wide tool (`clock`, `echo`); `mcp`: a tool of one of the tenant's connected MCP servers. */
  source: "builtin" | "mcp";
  /** The MCP server the tool comes from (`mcp` only). */
  serverKey?: string;
  description: string;
  enabled: boolean;
}

export interface PluginCatalogOptions {
  settings: PluginSettingStore;
  /** The agent runtime's registered tools (the built-ins and any registered on it). */
  registeredTools: () => StructuredToolInterface[];
  /** The tenant's MCP tools, live from this replica's MCP servers (never cached here). */
  mcpTools: TenantToolSource;
  /** Tells the peers the tenant's settings changed (the outbox), after the write. */
  announce(tenantId: string): Promise<void>;
  logger: Logger;
}

/** The catalog's order: built-ins first (`builtin` < `mcp`), then by name; the page key of its list. */
export const pluginOrderKey = (entry: PluginEntry): [string, string] => [entry.source, entry.name];
export const PLUGIN_ORDER = ["string", "string"] as const;

/** MCP tools are named `<serverKey>__<tool>`, and a server key never holds `__`. */
const MCP_SEPARATOR = "__";

/**
 * Each tenant's plugin catalog: the process-wide tools and its connected MCP servers' tools, each
 * enabled unless the tenant switched it off. The settings are read once per tenant and kept until
 * {@link invalidate}d — on this replica's own write, and on a peer's `plugin-catalog-changed`.
 */
export class PluginCatalog {
  /** Per tenant, the loading or loaded settings (name → enabled); dropped on invalidation. */
  private readonly cached = new Map<string, Promise<ReadonlyMap<string, boolean>>>();

  constructor(private readonly options: PluginCatalogOptions) {}

  /** The tenant's catalog in its order ({@link pluginOrderKey}): built-ins first, then MCP tools, each by name. */
  async entries(tenantId: string): Promise<PluginEntry[]> {
    const settings = await this.settings(tenantId);
    const entries = this.tools(tenantId).map(({ source, tool }): PluginEntry => {
      const serverKey = source === "mcp" ? tool.name.slice(0, tool.name.indexOf(MCP_SEPARATOR)) : undefined;
      return { name: tool.name, source, ...(serverKey ? { serverKey } : {}), description: tool.description, enabled: settings.get(tool.name) ?? true };
    });
    return entries.sort((a, b) => comparePageKeys(pluginOrderKey(a), pluginOrderKey(b)));
  }

  /** The names the tenant switched off (catalogued now or not: an MCP server may come back). */
  async disabled(tenantId: string): Promise<ReadonlySet<string>> {
    const settings = await this.settings(tenantId);
    return new Set([...settings].filter(([, enabled]) => !enabled).map(([name]) => name));
  }

  /**
   * Switches the named entry on or off for the tenant and tells the peers; `null` when the name is not
   * in the tenant's catalog (nothing written). Should the announcement fail, the earlier setting is
   * put back before the error is thrown, so no replica keeps a cache the store contradicts.
   */
  async setEnabled(tenantId: string, name: string, enabled: boolean): Promise<PluginEntry | null> {
    if (!this.tools(tenantId).some(({ tool }) => tool.name === name)) return null;
    const before = (await this.settings(tenantId)).get(name) ?? true;
    await this.options.settings.set(tenantId, name, enabled);
    this.invalidate(tenantId);
    try {
      await this.options.announce(tenantId);
    } catch (error) {
      await this.options.settings.set(tenantId, name, before).catch((restoreError: unknown) => {
        this.options.logger.error({ err: restoreError, tenantId, plugin: name }, "plugin setting not restored after a failed announcement; peers may serve a stale catalog");
      });
      this.invalidate(tenantId);
      throw error;
    }
    return (await this.entries(tenantId)).find((entry) => entry.name === name) ?? null;
  }

  /** Forgets the tenant's settings: the next use reads them from the store. */
  invalidate(tenantId: string): void {
    this.cached.delete(tenantId);
  }

  /** A peer wrote a tenant's settings: forget them here. */
  outboxHandlers(): OutboxTopicHandlers {
    return { [PLUGIN_CATALOG_CHANGED_TOPIC]: ({ tenantId }) => this.invalidate(tenantId) };
  }

  private tools(tenantId: string): Array<{ source: PluginEntry["source"]; tool: StructuredToolInterface }> {
    const builtins = this.options.registeredTools();
    const names = new Set(builtins.map((tool) => tool.name));
    // A registered tool wins over a tenant's of the same name, as when a run resolves tools.
    const mcp = [...this.options.mcpTools(tenantId).values()].filter((tool) => !names.has(tool.name));
    return [...builtins.map((tool) => ({ source: "builtin" as const, tool })), ...mcp.map((tool) => ({ source: "mcp" as const, tool }))];
  }

  private settings(tenantId: string): Promise<ReadonlyMap<string, boolean>> {
    let loading = this.cached.get(tenantId);
    if (!loading) {
      // An invalidation while this load runs drops it from the cache: what it read may be stale.
      loading = readAllPages((page) => this.options.settings.list(tenantId, page)).then((settings) => new Map(settings.map((setting) => [setting.name, setting.enabled])));
      this.cached.set(tenantId, loading);
      const attempt = loading;
      attempt.catch(() => {
        if (this.cached.get(tenantId) === attempt) this.cached.delete(tenantId);
      });
    }
    return loading;
  }
}
