import type { EgressPolicy } from "@axiom-lattice/core";
import type { AssistantModelConfig, ErrorCode } from "@axiom-lattice/protocols";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { createOpenAiCompatibleModel } from "./openAiCompatible";
import { ScriptedChatModel } from "./scriptedChatModel";
import { DEFAULT_UPSTREAM_POLICY } from "../defaults";

/**
 * How a model's API calls are bounded: the time one request may take, the retries after a failure,
 * and where a base URL may send them.
 */
export interface UpstreamPolicy {
  timeoutMs: number;
  maxRetries: number;
  egress: EgressPolicy;
}

/** Builds the chat model an assistant's model config describes, its API calls bounded by `policy`. */
export type ChatModelFactory = (config: AssistantModelConfig, policy: UpstreamPolicy) => BaseChatModel;

/** An assistant names a model provider no one registered. */
export class UnknownModelProviderError extends Error {
  readonly code = "UNKNOWN_MODEL_PROVIDER" satisfies ErrorCode;

  constructor(readonly provider: string) {
    super(`Unknown model provider "${provider}"; registered providers: ${[...providers.keys()].join(", ")}`);
    this.name = "UnknownModelProviderError";
  }
}

const providers = new Map<string, ChatModelFactory>([
  ["scripted", () => new ScriptedChatModel()],
  ["openai", createOpenAiCompatibleModel],
]);

/** Makes `provider` usable in assistants' model configs (replacing an earlier factory of that key). */
export function registerModelProvider(provider: string, factory: ChatModelFactory): void {
  providers.set(provider, factory);
}

/** Whether `provider` names a registered (built-in) factory rather than a tenant's catalog entry. */
export function isRegisteredModelProvider(provider: string): boolean {
  return providers.has(provider);
}

/** The factory registered for `provider`; throws `UnknownModelProviderError` when there is none. */
export function getModelProvider(provider: string): ChatModelFactory {
  const factory = providers.get(provider);
  if (!factory) throw new UnknownModelProviderError(provider);
  return factory;
}

/** The chat model for an assistant's model config. */
export function createChatModel(config: AssistantModelConfig, policy: UpstreamPolicy = DEFAULT_UPSTREAM_POLICY): BaseChatModel {
  return getModelProvider(config.provider)(config, policy);
}
