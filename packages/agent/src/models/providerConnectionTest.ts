import { EgressRefusedError } from "@axiom-lattice/core";
import type { ModelProviderCredentials } from "@axiom-lattice/protocols";
import type { UpstreamPolicy } from "./upstreamPolicy";
import { UpstreamError, type UpstreamErrorCode, asUpstreamError } from "./upstreamErrors";
import { fetchModelList } from "./upstreamModelList";

/** A connection test's verdict: reachable (and how many models the API lists), or the upstream failure that made it not. */
export interface ConnectionTestResult {
  reachable: boolean;
  latencyMs: number;
  /** Why it is not reachable. */
  code?: UpstreamErrorCode;
  error?: string;
  modelsCount?: number;
}

/**
 * Tries a provider's API as a run would reach it, reading its model list. Only a failure of the
 * upstream itself (one of the `UPSTREAM_*` codes, a redirect the egress policy refused among them)
 * is a verdict of "not reachable"; anything else, such as the policy refusing the base URL outright
 * (`BASE_URL_NOT_ALLOWED`), is thrown: the provider's configuration is at fault, not the API.
 * A `scripted` provider is the built-in model, always there: its own models are counted.
 */
export async function testProviderConnection(provider: ModelProviderCredentials, policy: UpstreamPolicy, fallbackApiKey?: string): Promise<ConnectionTestResult> {
  if (provider.kind === "scripted") return { reachable: true, latencyMs: 0, modelsCount: provider.models.length };
  const started = performance.now();
  const latencyMs = () => Math.round(performance.now() - started);
  try {
    const models = await fetchModelList(provider, policy, fallbackApiKey);
    return { reachable: true, latencyMs: latencyMs(), modelsCount: models.length };
  } catch (error) {
    const failure = asUpstreamError(error);
    const upstreamFault = failure instanceof UpstreamError || (failure instanceof EgressRefusedError && failure.code === "UPSTREAM_REDIRECT_BLOCKED");
    if (!upstreamFault) throw failure;
    return { reachable: false, latencyMs: latencyMs(), code: failure.code as UpstreamErrorCode, error: failure.message };
  }
}
