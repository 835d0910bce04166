import type { AssistantModelConfig } from "@axiom-lattice/protocols";
import { ChatOpenAI } from "@langchain/openai";
import type { UpstreamPolicy } from "./modelRegistry";

/** Any chat-completions API that speaks OpenAI's protocol (OpenAI itself, vLLM, Ollama, gateways…). */
export function createOpenAiCompatibleModel(config: AssistantModelConfig, { timeoutMs, maxRetries }: UpstreamPolicy): ChatOpenAI {
  return new ChatOpenAI({
    timeout: timeoutMs,
    maxRetries,
    model: config.model,
    apiKey: config.apiKey,
    temperature: config.temperature,
    configuration: config.baseUrl ? { baseURL: config.baseUrl } : undefined,
  });
}
