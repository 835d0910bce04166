import type { AssistantModelConfig, ErrorCode } from "@axiom-lattice/protocols";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { createOpenAiCompatibleModel } from "./openAiCompatible";
import { ScriptedChatModel } from "./scriptedChatModel";
import { DEFAULT_UPSTREAM_POLICY } from "../defaults";

/** How a model's API calls are bounded: the time one request may take and the retries after a failure. */
export interface UpstreamPolicy {
  timeoutMs: number;
  maxRetries: number;
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
