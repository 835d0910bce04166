import type { AssistantModelConfig, ModelProviderCredentials, ModelProviderStore } from "@axiom-lattice/protocols";
import { ModelDisabledError, type ModelProviderRegistry, UnknownModelProviderError } from "./modelRegistry";
import { anthropicKeyMissing, apiRootOf, chatProviderOf, isRootedKind } from "./providerKinds";

/** Where a run finds the tenant's model providers and their discovered models' flags. */
export type ModelProviderCatalog = Pick<ModelProviderStore, "getProviderCredentials" | "getModel">;

/**
 * The model config a run builds its model from. A registered provider (`scripted`, `openai`) is used
 * as the assistant states it. Any other name is the tenant's catalog provider, read from the store
 * at every run, not cached: a provider created or changed on any replica is what the next run
 * anywhere uses, with no registry to hydrate. The assistant picks the model (else the provider's
 * first) and the temperature; the provider brings kind, base URL and key. A provider switched off,
 * or a model switched off in its catalogue, fails the run at once (`MODEL_DISABLED`): read here, at
 * every run, a switch on any replica holds for the next run everywhere. A model never discovered is
 * the operator's to name.
 */
export async function resolveModelConfig(
  tenantId: string,
  config: AssistantModelConfig,
  catalog: ModelProviderCatalog | undefined,
  registered: ModelProviderRegistry,
): Promise<AssistantModelConfig> {
  if (registered.has(config.provider)) return config;
  const provider = await catalog?.getProviderCredentials(tenantId, config.provider);
  if (!provider) throw new UnknownModelProviderError(config.provider, registered.names());
  if (!provider.enabled) throw new ModelDisabledError(`Model provider "${provider.id}" is switched off (PATCH /api/model-providers/${provider.id} { "enabled": true })`);
  const model = config.model ?? provider.models[0];
  if (model !== undefined && (await catalog?.getModel(tenantId, provider.id, model))?.enabled === false) {
    throw new ModelDisabledError(`Model "${model}" of provider "${provider.id}" is switched off in its catalogue`);
  }
  return {
    ...endpointOf(provider),
    ...(model === undefined ? {} : { model }),
    ...(config.temperature === undefined ? {} : { temperature: config.temperature }),
  };
}

/**
 * Which registered provider speaks to a catalog provider's API, where, with which key. Ollama and
 * Anthropic are spoken to at their OpenAI-compatible chat path (`{root}/v1`), never with the
 * built-in `openai` provider's fallback key, which is not theirs: Ollama takes any key (it asks for
 * none), Anthropic needs the provider's own.
 */
function endpointOf({ kind, baseUrl, apiKey }: ModelProviderCredentials): Pick<AssistantModelConfig, "provider" | "baseUrl" | "apiKey"> {
  if (!isRootedKind(kind)) return { provider: kind, ...(baseUrl === undefined ? {} : { baseUrl }), ...(apiKey === undefined ? {} : { apiKey }) };
  if (kind === "anthropic" && !apiKey) throw anthropicKeyMissing();
  // The OpenAI SDK wants a key; Ollama ignores whatever it is sent.
  return { provider: chatProviderOf(kind), baseUrl: `${apiRootOf(kind, baseUrl)}/v1`, apiKey: apiKey || "ollama" };
}
