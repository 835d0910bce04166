import { type AgentInstanceManager, chatProviderOf, checkAssistantReferences } from "@axiom-lattice/agent";
import { checkEgressUrl } from "@axiom-lattice/core";
import type { AssistantModelConfig } from "@axiom-lattice/protocols";
import type { GatewayConfig } from "../config";
import { HttpError } from "../http/errors";
import type { McpServerManager } from "../mcp/mcpServerManager";
import type { PluginCatalog } from "../plugins/pluginCatalog";
import type { GatewayStores } from "../stores/gatewayStores";

/** What {@link assistantReferenceCheck} looks names up in. */
export interface AssistantReferenceSources {
  stores: Pick<GatewayStores, "modelProviders">;
  config: Pick<GatewayConfig, "upstream">;
  mcp: Pick<McpServerManager, "tenantTools">;
  plugins: Pick<PluginCatalog, "disabled">;
  agents: Pick<AgentInstanceManager, "models" | "tools">;
}

/** What a configuration naming something a run could not use is refused with, nothing written. */
export const REFERENCE_CODES = ["UNKNOWN_TOOL", "TOOL_DISABLED", "UNKNOWN_MODEL_PROVIDER", "MODEL_DISABLED", "INVALID_BASE_URL", "BASE_URL_NOT_ALLOWED"] as const;

/**
 * Refuses a model or tools a run could not use (see `REFERENCE_CODES`), before anything is written.
 * A provider is built in, or one of the tenant's catalog providers (which stands for the provider speaking its kind); the
 * tenant's connected MCP servers' tools count as known; a tool the tenant switched off is refused, and
 * so is a catalog provider switched off, or its model (the named one, else its first) switched off in its catalogue.
 * Both APIs that write assistants (`/api` and the LangGraph API) check through it.
 */
export function assistantReferenceCheck({ stores, config, mcp, plugins, agents }: AssistantReferenceSources) {
  return async (tenantId: string, { model, tools }: { model?: AssistantModelConfig; tools?: string[] }): Promise<void> => {
    let provider = model?.provider ?? "scripted";
    if (!agents.models.has(provider)) {
      const catalogued = await stores.modelProviders.getProvider(tenantId, provider);
      if (!catalogued) throw new HttpError("UNKNOWN_MODEL_PROVIDER", `Unknown model provider "${provider}": neither built in nor one of the tenant's model providers`);
      if (!catalogued.enabled) throw new HttpError("MODEL_DISABLED", `Model provider "${provider}" is switched off`);
      const named = model?.model ?? catalogued.models[0];
      if (named !== undefined && (await stores.modelProviders.getModel(tenantId, provider, named))?.enabled === false) {
        throw new HttpError("MODEL_DISABLED", `Model "${named}" of provider "${provider}" is switched off in its catalogue`);
      }
      provider = chatProviderOf(catalogued.kind);
    }
    checkAssistantReferences({ model: { provider }, tools: tools ?? [] }, agents, mcp.tenantTools(tenantId));
    const disabled = tools?.length ? await plugins.disabled(tenantId) : new Set<string>();
    const off = tools?.find((name) => disabled.has(name));
    if (off !== undefined) throw new HttpError("TOOL_DISABLED", `Tool "${off}" is switched off for this tenant (PATCH /api/plugins/${off} to enable it)`);
    if (model?.baseUrl !== undefined) await checkEgressUrl(model.baseUrl, config.upstream.egress);
  };
}
