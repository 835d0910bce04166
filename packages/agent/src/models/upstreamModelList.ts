import { egressFetch } from "@axiom-lattice/core";
import { MAX_MODEL_NAME_LENGTH, type ModelProviderCredentials } from "@axiom-lattice/protocols";
import type { UpstreamPolicy } from "./upstreamPolicy";
import { UpstreamError, upstreamCodeOfStatus } from "./upstreamErrors";

/** Where an `openai` provider without a base URL is served: the SDK's own default, which runs use too. */
const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/**
 * The largest model list read: a thousand models with metadata take a few hundred KiB, the biggest
 * public lists a few MiB. An answer past it is refused before it exhausts the replica's memory.
 */
export const MAX_MODEL_LIST_BYTES = 16 * 1024 * 1024;

/** A provider as the model list is read from it: what speaks to it, where, and with which key. */
export type ModelListSource = Pick<ModelProviderCredentials, "kind" | "baseUrl" | "apiKey">;

/**
 * The model ids of an OpenAI-compatible `GET /models` answer (`{ data: [{ id }] }`), or undefined when
 * it is not one: an id that is no name a model could have (empty, or longer than any the catalogue takes) included.
 */
function modelIdsOf(body: unknown): string[] | undefined {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return undefined;
  const ids = data.map((entry) => (entry as { id?: unknown } | null)?.id);
  return ids.every((id): id is string => typeof id === "string" && id.length > 0 && id.length <= MAX_MODEL_NAME_LENGTH) ? ids : undefined;
}

/** The body as text, read no further than `limit` bytes. */
async function boundedText(response: Response, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of response.body ?? []) {
    length += chunk.byteLength;
    // Leaving the loop cancels the body: the rest is never received.
    if (length > limit) {
      throw new UpstreamError("UPSTREAM_INVALID_RESPONSE", `The model API's answer to GET /models is larger than ${limit / 1024 / 1024} MiB`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The models an OpenAI-compatible API lists (`GET {base_url}/models`), in its order. Called as a run
 * calls the API: a tenant's base URL through the egress policy, within the policy's timeout, with
 * the provider's key else `fallbackApiKey`. Fails with an {@link UpstreamError} (or the policy's
 * refusal, wrapped as fetch wraps network failures) when the API cannot be read.
 */
export async function fetchOpenAiModelList(source: ModelListSource, policy: UpstreamPolicy, fallbackApiKey?: string): Promise<string[]> {
  const apiKey = source.apiKey || fallbackApiKey;
  if (!apiKey) throw new UpstreamError("UPSTREAM_AUTH_FAILED", "No API key for the model API: give the model provider an API key (`api_key`), or set OPENAI_API_KEY");
  const baseUrl = source.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
  const call = source.baseUrl ? egressFetch(policy.egress) : fetch;
  const signal = AbortSignal.timeout(policy.timeoutMs);
  const response = await call(`${baseUrl.replace(/\/+$/, "")}/models`, { headers: { authorization: `Bearer ${apiKey}`, accept: "application/json" }, signal });
  if (!response.ok) {
    // The body may quote the refused key: only the status is kept.
    await response.body?.cancel();
    throw new UpstreamError(upstreamCodeOfStatus(response.status), `The model API answered HTTP ${response.status} to GET /models`);
  }
  const text = await boundedText(response, MAX_MODEL_LIST_BYTES);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new UpstreamError("UPSTREAM_INVALID_RESPONSE", "The model API's answer to GET /models is not JSON");
  }
  const ids = modelIdsOf(body);
  if (!ids) throw new UpstreamError("UPSTREAM_INVALID_RESPONSE", 'The model API\'s answer to GET /models is not a model list ({ "data": [{ "id": … }] })');
  return ids;
}
