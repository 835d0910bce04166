import type { AssistantModelConfig, ErrorCode } from "@axiom-lattice/protocols";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { createOpenAiCompatibleModel } from "./openAiCompatible";
import { ScriptedChatModel } from "./scriptedChatModel";
import { DEFAULT_UPSTREAM_POLICY } from "../defaults";
import type { UpstreamPolicy } from "./upstreamPolicy";

/** Builds the chat model an assistant's model config describes, its API calls bounded by `policy`. */
export type ChatModelFactory = (config: AssistantModelConfig, policy: UpstreamPolicy) => BaseChatModel;

/** An assistant names a model provider no one registered. */
export class UnknownModelProviderError extends Error {
  readonly code = "UNKNOWN_MODEL_PROVIDER" satisfies ErrorCode;

  constructor(
    readonly provider: string,
    registered: readonly string[],
  ) {
    super(`Unknown model provider "${provider}"; registered providers: ${registered.join(", ")}`);
    this.name = "UnknownModelProviderError";
  }
}

/** An assistant's catalog provider, or its model in the provider's catalogue, is switched off. */
export class ModelDisabledError extends Error {
  readonly code = "MODEL_DISABLED" satisfies ErrorCode;

  constructor(message: string) {
    super(message);
    this.name = "ModelDisabledError";
  }
}

export interface ModelProviderRegistryOptions {
  /** The key of the built-in `openai` provider when neither the assistant nor its catalog provider has one. */
  openAiApiKey?: string;
}

/**
 * One agent runtime's model providers: the built-ins (`scripted`, `openai`) and those registered on
 * it. Each runtime has its own, so two in one process never see each other's.
 */
export class ModelProviderRegistry {
  private readonly providers: Map<string, ChatModelFactory>;

  constructor(options: ModelProviderRegistryOptions = {}) {
    this.providers = new Map<string, ChatModelFactory>([
      ["scripted", () => new ScriptedChatModel()],
      ["openai", (config, policy) => createOpenAiCompatibleModel(config, policy, options.openAiApiKey)],
    ]);
  }

  /** Makes `provider` usable in assistants' model configs (replacing an earlier factory of that key). */
  register(provider: string, factory: ChatModelFactory): void {
    this.providers.set(provider, factory);
  }

  /** Whether `provider` names a registered (built-in) factory rather than a tenant's catalog entry. */
  has(provider: string): boolean {
    return this.providers.has(provider);
  }

  /** The registered providers' keys, in registration order. */
  names(): string[] {
    return [...this.providers.keys()];
  }

  /** The factory registered for `provider`; throws `UnknownModelProviderError` when there is none. */
  get(provider: string): ChatModelFactory {
    const factory = this.providers.get(provider);
    if (!factory) throw new UnknownModelProviderError(provider, this.names());
    return factory;
  }

  /** The chat model for an assistant's model config. */
  createChatModel(config: AssistantModelConfig, policy: UpstreamPolicy = DEFAULT_UPSTREAM_POLICY): BaseChatModel {
    return this.get(config.provider)(config, policy);
  }
}
