import {
  type CreateModelProviderRequest,
  MAX_DISCOVERED_MODELS,
  MAX_MODEL_NAME_LENGTH,
  MODEL_PROVIDER_KINDS,
  type ModelProviderKind,
  type UpdateModelProviderRequest,
} from "@axiom-lattice/protocols";
import { SecretsRequiredError } from "../secrets/secretsRequiredError";
import { StoreArgumentError, optionalText, requireObject, requireText } from "../stores/storeArguments";

// Checks shared by every ModelProviderStore, so bad input is refused alike and before any write.

export interface ValidModelProvider {
  id: string;
  kind: ModelProviderKind;
  baseUrl?: string;
  models: string[];
  apiKey?: string;
  enabled: boolean;
}

/** `null` removes an optional field; absent keeps it. */
export interface ValidModelProviderUpdate {
  kind?: ModelProviderKind;
  baseUrl?: string | null;
  models?: string[];
  apiKey?: string | null;
  enabled?: boolean;
}

function validateKind(kind: unknown): ModelProviderKind {
  if (!MODEL_PROVIDER_KINDS.includes(kind as ModelProviderKind)) {
    throw new StoreArgumentError(`Model provider kind must be one of ${MODEL_PROVIDER_KINDS.join(", ")}, got ${String(kind)}`);
  }
  return kind as ModelProviderKind;
}

/** Only `http`/`https`: a provider's URL is fetched by the gateway, never a file or a script. */
export function validateModelBaseUrl(baseUrl: unknown, what = "Model provider baseUrl"): string {
  const text = requireText(baseUrl, what);
  let protocol: string;
  try {
    protocol = new URL(text).protocol;
  } catch {
    throw new StoreArgumentError(`${what} must be an absolute URL`);
  }
  if (protocol !== "http:" && protocol !== "https:") throw new StoreArgumentError(`${what} must be an http or https URL, got ${protocol}`);
  return text;
}

function validateModels(models: unknown): string[] {
  if (!Array.isArray(models)) throw new StoreArgumentError("Model provider models must be an array of model names");
  return models.map((model) => requireText(model, "Model provider model name"));
}

export function validateCreateModelProvider(request: CreateModelProviderRequest): ValidModelProvider {
  const checked = requireObject(request, "Model provider");
  const valid: ValidModelProvider = {
    id: requireText(checked.id, "Model provider id"),
    kind: validateKind(checked.kind),
    models: validateModels(checked.models ?? []),
    enabled: checked.enabled === undefined ? true : requireEnabledFlag(checked.enabled),
  };
  if (checked.baseUrl !== undefined) valid.baseUrl = validateModelBaseUrl(checked.baseUrl);
  const apiKey = optionalText(checked.apiKey, "Model provider apiKey");
  if (apiKey !== undefined) valid.apiKey = apiKey;
  return valid;
}

export function validateUpdateModelProvider(request: UpdateModelProviderRequest): ValidModelProviderUpdate {
  const checked = requireObject(request, "Model provider update");
  const update: ValidModelProviderUpdate = {};
  if (checked.kind !== undefined) update.kind = validateKind(checked.kind);
  if (checked.baseUrl !== undefined) update.baseUrl = checked.baseUrl === null ? null : validateModelBaseUrl(checked.baseUrl);
  if (checked.models !== undefined) update.models = validateModels(checked.models);
  if (checked.apiKey !== undefined) update.apiKey = checked.apiKey === null ? null : requireText(checked.apiKey, "Model provider apiKey");
  if (checked.enabled !== undefined) update.enabled = requireEnabledFlag(checked.enabled);
  return update;
}

/** Model provider ids name the provider in assistants' `model.provider`. */
/** What {@link requireKeyForNewDestination} compares an update with. */
export interface StoredProviderDestination {
  kind: ModelProviderKind;
  baseUrl?: string;
  hasApiKey: boolean;
}

/**
 * Refuses an update that moves a stored key to another API (a new kind or base URL, or the kind's
 * default endpoint) without giving a key again (`apiKey`, or `null` to drop it): a stored key never
 * follows a new destination ({@link SecretsRequiredError}).
 */
export function requireKeyForNewDestination(providerId: string, stored: StoredProviderDestination, update: ValidModelProviderUpdate): void {
  if (!stored.hasApiKey || update.apiKey !== undefined) return;
  const movesUrl = update.baseUrl !== undefined && (update.baseUrl ?? undefined) !== stored.baseUrl;
  const movesKind = update.kind !== undefined && update.kind !== stored.kind;
  if (movesUrl || movesKind) {
    throw new SecretsRequiredError(`Model provider ${providerId}: a new base URL or kind needs its API key again (or null, which drops it); a stored key never follows a new destination`);
  }
}

export const requireModelProviderId = (providerId: unknown): string => requireText(providerId, "Model provider id");

export function requireModelName(model: unknown): string {
  const name = requireText(model, "Model name");
  if (name.length > MAX_MODEL_NAME_LENGTH) throw new StoreArgumentError(`Model name must be at most ${MAX_MODEL_NAME_LENGTH} characters`);
  return name;
}

export function requireEnabledFlag(enabled: unknown): boolean {
  if (typeof enabled !== "boolean") throw new StoreArgumentError(`enabled must be a boolean, got ${typeof enabled}`);
  return enabled;
}

/** A discovery's model list: names, none twice, at most {@link MAX_DISCOVERED_MODELS} (the caller cuts a longer one). */
export function validateDiscoveredModels(models: unknown): string[] {
  if (!Array.isArray(models)) throw new StoreArgumentError("Discovered models must be an array of model names");
  if (models.length > MAX_DISCOVERED_MODELS) throw new StoreArgumentError(`A discovery records at most ${MAX_DISCOVERED_MODELS} models, got ${models.length}`);
  const names = models.map(requireModelName);
  if (new Set(names).size !== names.length) throw new StoreArgumentError("Discovered models must not name a model twice");
  return names;
}
