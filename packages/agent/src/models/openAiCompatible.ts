import type { AssistantModelConfig } from "@axiom-lattice/protocols";
import { ChatOpenAI } from "@langchain/openai";
import type { UpstreamPolicy } from "./modelRegistry";
import { UpstreamError } from "./upstreamErrors";

/**
 * Any chat-completions API that speaks OpenAI's protocol (OpenAI itself, vLLM, Ollama, gateways…).
 * Without a key the SDK would fail every call with a message of its own and no code; the run fails
 * here instead, with the code of refused credentials (an API that wants none takes any key).
 */
export function createOpenAiCompatibleModel(config: AssistantModelConfig, { timeoutMs, maxRetries }: UpstreamPolicy): ChatOpenAI {
  const apiKey = config.apiKey || process.env.OPENAI_API_KEY;
  if (!apiKey) {
    throw new UpstreamError("UPSTREAM_AUTH_FAILED", "No API key for the model API: set the assistant's model.apiKey, its model provider's apiKey, or OPENAI_API_KEY");
  }
  return new ChatOpenAI({
    timeout: timeoutMs,
    maxRetries,
    model: config.model,
    apiKey,
    temperature: config.temperature,
    configuration: config.baseUrl ? { baseURL: config.baseUrl } : undefined,
  });
}
