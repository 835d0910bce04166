import { MAX_DISCOVERED_MODELS, type DiscoveryRecord, type ModelProviderCredentials, type ModelProviderStore } from "@axiom-lattice/protocols";
import type { UpstreamPolicy } from "./upstreamPolicy";
import { asUpstreamError } from "./upstreamErrors";
import { fetchModelList } from "./upstreamModelList";

/** What a discovery recorded, and whether the upstream listed more than the cap. */
export interface DiscoveryResult extends DiscoveryRecord {
  /** Distinct models the upstream listed. */
  listed: number;
  /** The upstream listed more than {@link MAX_DISCOVERED_MODELS}: only the first ones, in its order, were recorded. */
  truncated: boolean;
}

/**
 * Reads a provider's model list upstream, as its kind speaks (OpenAI, Ollama, Anthropic), and records
 * it in the store, where every replica reads it. A `scripted` provider has no upstream: its own models
 * are its list. Nothing is recorded when the upstream fails: the failure is thrown as an
 * `UpstreamError` (or the egress policy's refusal), and the models recorded before stay as they were. Null when the provider was deleted meanwhile.
 */
export async function discoverProviderModels(
  provider: ModelProviderCredentials,
  policy: UpstreamPolicy,
  store: Pick<ModelProviderStore, "recordDiscovery">,
  fallbackApiKey?: string,
): Promise<DiscoveryResult | null> {
  let listed: string[];
  try {
    listed = await fetchModelList(provider, policy, fallbackApiKey);
  } catch (error) {
    throw asUpstreamError(error);
  }
  // APIs may list a model twice (aliases): the first mention counts.
  const distinct = [...new Set(listed)];
  const recorded = await store.recordDiscovery(provider.tenantId, provider.id, distinct.slice(0, MAX_DISCOVERED_MODELS));
  return recorded && { ...recorded, listed: distinct.length, truncated: distinct.length > MAX_DISCOVERED_MODELS };
}
