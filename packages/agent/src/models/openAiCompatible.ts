import { egressFetch, findEgressRefusal } from "@axiom-lattice/core";
import type { AssistantModelConfig } from "@axiom-lattice/protocols";
import { AsyncCaller, type FailedAttemptHandler } from "@langchain/core/utils/async_caller";
import { ChatOpenAI } from "@langchain/openai";
import { operatorKeyFor } from "./operatorKey";
import type { UpstreamPolicy } from "./upstreamPolicy";
import { UpstreamError } from "./upstreamErrors";

/**
 * Any chat-completions API that speaks OpenAI's protocol (OpenAI itself, vLLM, Ollama, gateways…).
 * Without a key the SDK would fail every call with a message of its own and no code; the run fails
 * here instead, with the code of refused credentials (an API that wants none takes any key). A base
 * URL the assistant names is called through the egress policy, on every connection and redirect.
 * `fallbackApiKey` is the runtime's own (the gateway reads OPENAI_API_KEY), used when the config has
 * none and calls OpenAI's own API (see {@link operatorKeyFor}).
 */
export function createOpenAiCompatibleModel(config: AssistantModelConfig, { timeoutMs, maxRetries, egress }: UpstreamPolicy, fallbackApiKey?: string): ChatOpenAI {
  const apiKey = config.apiKey || operatorKeyFor(config.baseUrl, fallbackApiKey);
  if (!apiKey) {
    throw new UpstreamError(
      "UPSTREAM_AUTH_FAILED",
      "No API key for the model API: give the assistant's model or its model provider an API key (`api_key`); OPENAI_API_KEY is sent to OpenAI's API only",
    );
  }
  return new ChatOpenAI({
    timeout: timeoutMs,
    maxRetries,
    onFailedAttempt: retryUnlessRefused,
    model: config.model,
    apiKey,
    temperature: config.temperature,
    configuration: config.baseUrl ? { baseURL: config.baseUrl, fetch: egressFetch(egress) } : undefined,
  });
}

// LangChain's own rules for trying a failed call again: it does not export them, but a caller given
// none applies them.
const langChainRetryRules = (new AsyncCaller({}) as unknown as { onFailedAttempt: FailedAttemptHandler }).onFailedAttempt;

/**
 * LangChain's retry rules, except that a call the egress policy refused is not tried again: it would be
 * refused again. Its rules honour a 429's `Retry-After` (the next try waits at least that long; a wait
 * over a minute fails the run at once, `UPSTREAM_RATE_LIMITED`, rather than hold it).
 */
const retryUnlessRefused: FailedAttemptHandler = (error) => {
  if (findEgressRefusal(error)) throw error;
  return langChainRetryRules(error);
};
