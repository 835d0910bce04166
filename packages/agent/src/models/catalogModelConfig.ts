import type { AssistantModelConfig, ModelProviderStore } from "@axiom-lattice/protocols";
import { type ModelProviderRegistry, UnknownModelProviderError } from "./modelRegistry";

/** Where a run finds the tenant's model providers. */
export type ModelProviderCatalog = Pick<ModelProviderStore, "getProviderCredentials">;

/**
 * The model config a run builds its model from. A registered provider (`scripted`, `openai`) is used
 * as the assistant states it. Any other name is the tenant's catalog provider, read from the store
 * at every run, not cached: a provider created or changed on any replica is what the next run
 * anywhere uses, with no registry to hydrate. The assistant picks the model (else the provider's
 * first) and the temperature; the provider brings kind, base URL and key.
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
  const model = config.model ?? provider.models[0];
  return {
    provider: provider.kind,
    ...(model === undefined ? {} : { model }),
    ...(provider.baseUrl === undefined ? {} : { baseUrl: provider.baseUrl }),
    ...(provider.apiKey === undefined ? {} : { apiKey: provider.apiKey }),
    ...(config.temperature === undefined ? {} : { temperature: config.temperature }),
  };
}
