import type { AssistantModelConfig } from "@axiom-lattice/protocols";
import { ChatOpenAI } from "@langchain/openai";

/** Any chat-completions API that speaks OpenAI's protocol (OpenAI itself, vLLM, Ollama, gateways…). */
export function createOpenAiCompatibleModel(config: AssistantModelConfig): ChatOpenAI {
  return new ChatOpenAI({
    model: config.model,
    apiKey: config.apiKey,
    temperature: config.temperature,
    configuration: config.baseUrl ? { baseURL: config.baseUrl } : undefined,
  });
}
