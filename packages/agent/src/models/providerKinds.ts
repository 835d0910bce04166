import type { ModelProviderKind } from "@axiom-lattice/protocols";
import { UpstreamError } from "./upstreamErrors";

/** The kinds whose API has a root of its own, with the OpenAI-compatible chat path under `/v1`. */
export type RootedProviderKind = Extract<ModelProviderKind, "ollama" | "anthropic">;

/** Where a kind's API answers when its provider names no base URL. */
const DEFAULT_ROOTS: Record<RootedProviderKind, string> = {
  ollama: "http://127.0.0.1:11434",
  anthropic: "https://api.anthropic.com",
};

export function isRootedKind(kind: ModelProviderKind): kind is RootedProviderKind {
  return kind in DEFAULT_ROOTS;
}

/**
 * The root of an Ollama or Anthropic API (`http://host:11434`), from a provider's base URL given
 * with or without `/v1`: operators often give Ollama's OpenAI-compatible path, which its own API
 * (`/api/tags`) is not under.
 */
export function apiRootOf(kind: RootedProviderKind, baseUrl: string | undefined): string {
  return (baseUrl ?? DEFAULT_ROOTS[kind]).replace(/\/+$/, "").replace(/\/v1$/, "");
}

/** The registered provider whose chat model speaks to a catalog provider of `kind`: Ollama's and Anthropic's APIs are spoken to at their OpenAI-compatible path. */
export function chatProviderOf(kind: ModelProviderKind): string {
  return isRootedKind(kind) ? "openai" : kind;
}

/** What reading or running an Anthropic provider without a key fails with: the API is not called, and no other key is sent. */
export function anthropicKeyMissing(): UpstreamError {
  return new UpstreamError("UPSTREAM_AUTH_FAILED", "No API key for Anthropic's API: give the model provider an API key (`api_key`)");
}
