import { egressFetch } from "@axiom-lattice/core";
import { MAX_DISCOVERED_MODELS, MAX_MODEL_NAME_LENGTH, type ModelProviderCredentials } from "@axiom-lattice/protocols";
import type { UpstreamPolicy } from "./upstreamPolicy";
import { UpstreamError, upstreamCodeOfStatus } from "./upstreamErrors";
import { OPENAI_DEFAULT_BASE_URL, operatorKeyFor } from "./operatorKey";
import { anthropicKeyMissing, apiRootOf } from "./providerKinds";

/** Where an `openai` provider without a base URL is served: the SDK's own default, which runs use too. */

/** The version of Anthropic's API its model list is read in (sent as `anthropic-version`). */
export const ANTHROPIC_VERSION = "2023-06-01";

/**
 * The largest model list read: a thousand models with metadata take a few hundred KiB, the biggest
 * public lists a few MiB. An answer past it is refused before it exhausts the replica's memory.
 */
export const MAX_MODEL_LIST_BYTES = 16 * 1024 * 1024;

/** A provider as the model list is read from it: what speaks to it, where, with which key (and a scripted one's own list). */
export type ModelListSource = Pick<ModelProviderCredentials, "kind" | "baseUrl" | "apiKey" | "models">;

/** How the requests of one listing are made: through which fetch, with which headers, until when. */
interface ListingCall {
  fetch: typeof fetch;
  headers: Record<string, string>;
  signal: AbortSignal;
}

/** Whether an API's model id is a name a model could have here: not empty, nor longer than any the catalogue takes. */
function isModelName(id: unknown): id is string {
  return typeof id === "string" && id.length > 0 && id.length <= MAX_MODEL_NAME_LENGTH;
}

/** `field` of each entry of `list`, or undefined when `list` is no array or one of them is no model name. */
function modelNamesOf(list: unknown, field: string): string[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const names = list.map((entry) => (entry as Record<string, unknown> | null)?.[field]);
  return names.every(isModelName) ? names : undefined;
}

/** The body as text, read no further than `limit` bytes. */
async function boundedText(response: Response, limit: number, what: string): Promise<string> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of response.body ?? []) {
    length += chunk.byteLength;
    // Leaving the loop cancels the body: the rest is never received.
    if (length > limit) {
      throw new UpstreamError("UPSTREAM_INVALID_RESPONSE", `The model API's answer to ${what} is larger than ${limit / 1024 / 1024} MiB`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The JSON an API answers to `GET url` (`what` names the request in errors); an {@link UpstreamError} when it answers anything else. */
async function getJson(url: string, call: ListingCall, what: string): Promise<unknown> {
  const response = await call.fetch(url, { headers: { ...call.headers, accept: "application/json" }, signal: call.signal });
  if (!response.ok) {
    // The body may quote the refused key: only the status is kept.
    await response.body?.cancel();
    throw new UpstreamError(upstreamCodeOfStatus(response.status), `The model API answered HTTP ${response.status} to ${what}`);
  }
  const text = await boundedText(response, MAX_MODEL_LIST_BYTES, what);
  try {
    return JSON.parse(text);
  } catch {
    throw new UpstreamError("UPSTREAM_INVALID_RESPONSE", `The model API's answer to ${what} is not JSON`);
  }
}

function notAList(what: string, shape: string): UpstreamError {
  return new UpstreamError("UPSTREAM_INVALID_RESPONSE", `The model API's answer to ${what} is not a model list (${shape})`);
}

/** OpenAI's `GET {base_url}/models`: `{ data: [{ id }] }`, one answer. */
async function openAiModels(baseUrl: string, call: ListingCall): Promise<string[]> {
  const body = await getJson(`${baseUrl.replace(/\/+$/, "")}/models`, call, "GET /models");
  const ids = modelNamesOf((body as { data?: unknown } | null)?.data, "id");
  if (!ids) throw notAList("GET /models", '{ "data": [{ "id": … }] }');
  return ids;
}

/** Ollama's `GET {root}/api/tags`: `{ models: [{ name, model, modified_at, size, … }] }`, one answer. */
async function ollamaModels(root: string, call: ListingCall): Promise<string[]> {
  const body = await getJson(`${root}/api/tags`, call, "GET /api/tags");
  const names = modelNamesOf((body as { models?: unknown } | null)?.models, "name");
  if (!names) throw notAList("GET /api/tags", '{ "models": [{ "name": … }] }');
  return names;
}

/**
 * Anthropic's `GET {root}/v1/models`, paged: `{ data: [{ id, display_name, created_at }], has_more,
 * last_id }`, the next page `?after_id=<last_id>`. Pages are followed until the API has no more or
 * more than the catalogue's cap were read (enough to say the list was cut).
 */
async function anthropicModels(root: string, call: ListingCall): Promise<string[]> {
  const what = "GET /v1/models";
  const ids: string[] = [];
  const distinct = new Set<string>();
  let afterId: string | undefined;
  for (;;) {
    const url = new URL(`${root}/v1/models`);
    url.searchParams.set("limit", "1000");
    if (afterId !== undefined) url.searchParams.set("after_id", afterId);
    const page = (await getJson(url.href, call, what)) as { data?: unknown; has_more?: unknown; last_id?: unknown } | null;
    const pageIds = modelNamesOf(page?.data, "id");
    if (!pageIds || typeof page?.has_more !== "boolean") throw notAList(what, '{ "data": [{ "id": … }], "has_more": … }');
    ids.push(...pageIds);
    for (const id of pageIds) distinct.add(id);
    if (!page.has_more || distinct.size > MAX_DISCOVERED_MODELS) return ids;
    // A cursor that does not move on would page forever.
    if (pageIds.length === 0 || typeof page.last_id !== "string" || page.last_id === afterId) {
      throw notAList(what, "more pages announced, but no cursor past the last one");
    }
    afterId = page.last_id;
  }
}

/**
 * The models a provider lists, in its order. A `scripted` provider is the built-in model, with no
 * API: its own models are its list. Any other kind's API is read as the kind says: OpenAI's `GET
 * {base_url}/models`, Ollama's `GET /api/tags`, Anthropic's paged `GET /v1/models` (the base URL of
 * those two given with or without `/v1`). Called as a run calls the API: a tenant's base URL (and
 * Ollama's or Anthropic's default one) through the egress policy, every page within the policy's
 * one timeout, with the provider's key; an `openai` provider without one at OpenAI's own API uses
 * `fallbackApiKey`, which no other API is ever sent. Fails with an {@link UpstreamError} (or the policy's
 * refusal, wrapped as fetch wraps network failures) when the API cannot be read.
 */
export async function fetchModelList(source: ModelListSource, policy: UpstreamPolicy, fallbackApiKey?: string): Promise<string[]> {
  const signal = AbortSignal.timeout(policy.timeoutMs);
  switch (source.kind) {
    case "openai": {
      const apiKey = source.apiKey || operatorKeyFor(source.baseUrl, fallbackApiKey);
      if (!apiKey) {
        throw new UpstreamError("UPSTREAM_AUTH_FAILED", "No API key for the model API: give the model provider an API key (`api_key`); OPENAI_API_KEY is sent to OpenAI's API only");
      }
      const call = { fetch: source.baseUrl ? egressFetch(policy.egress) : fetch, headers: { authorization: `Bearer ${apiKey}` }, signal };
      return openAiModels(source.baseUrl ?? OPENAI_DEFAULT_BASE_URL, call);
    }
    case "ollama": {
      // Ollama asks for no key; one given is for a proxy in front of it.
      const headers: Record<string, string> = source.apiKey ? { authorization: `Bearer ${source.apiKey}` } : {};
      return ollamaModels(apiRootOf("ollama", source.baseUrl), { fetch: egressFetch(policy.egress), headers, signal });
    }
    case "anthropic": {
      if (!source.apiKey) throw anthropicKeyMissing();
      const headers = { "x-api-key": source.apiKey, "anthropic-version": ANTHROPIC_VERSION };
      return anthropicModels(apiRootOf("anthropic", source.baseUrl), { fetch: egressFetch(policy.egress), headers, signal });
    }
    case "scripted":
      return source.models;
  }
}
