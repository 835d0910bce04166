import {
  type CreateModelProviderRequest,
  MAX_DISCOVERED_MODELS,
  MAX_MODEL_NAME_LENGTH,
  MODEL_PROVIDER_KINDS,
  type ModelProviderKind,
  type UpdateModelProviderRequest,
} from "@axiom-lattice/protocols";
import { SecretsRequiredError } from "../secrets/secretsRequiredError";
import { z } from "zod";
import { fieldRules as rules } from "../validation/fieldRules";
import { definedFields, parseStoreArgument } from "../validation/parseStoreArgument";

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

/** Only `http`/`https`: a provider's URL is fetched by the gateway, never a file or a script. */
export function validateModelBaseUrl(baseUrl: unknown, what = "Model provider baseUrl"): string {
  return parseStoreArgument(rules.httpUrl, baseUrl, what);
}

const kind = z.enum(MODEL_PROVIDER_KINDS, { error: `must be one of ${MODEL_PROVIDER_KINDS.join(", ")}` });
const models = z.array(rules.text, { error: "must be an array of model names" });

const createSchema = z.object(
  {
    id: rules.text,
    kind,
    models: models.default([]),
    enabled: rules.boolean.default(true),
    baseUrl: rules.httpUrl.optional(),
    apiKey: rules.text.optional(),
  },
  { error: "must be an object" },
);

// `null` removes an optional field.
const updateSchema = z.object(
  { kind, baseUrl: rules.httpUrl.nullable(), models, apiKey: rules.text.nullable(), enabled: rules.boolean },
  { error: "must be an object" },
).partial();

export function validateCreateModelProvider(request: CreateModelProviderRequest): ValidModelProvider {
  return definedFields(parseStoreArgument(createSchema, request, "Model provider"));
}

export function validateUpdateModelProvider(request: UpdateModelProviderRequest): ValidModelProviderUpdate {
  return definedFields(parseStoreArgument(updateSchema, request, "Model provider update"));
}

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

export const requireModelProviderId = (providerId: unknown): string => parseStoreArgument(rules.text, providerId, "Model provider id");

const modelName = rules.text.max(MAX_MODEL_NAME_LENGTH, `must be at most ${MAX_MODEL_NAME_LENGTH} characters`);

export const requireModelName = (model: unknown): string => parseStoreArgument(modelName, model, "Model name");

export const requireEnabledFlag = (enabled: unknown): boolean => parseStoreArgument(rules.boolean, enabled, "enabled");

const discoveredModels = z
  .array(modelName, { error: "must be an array of model names" })
  .max(MAX_DISCOVERED_MODELS, `must hold at most ${MAX_DISCOVERED_MODELS} models`)
  .refine((names) => new Set(names).size === names.length, "must not name a model twice");

/** A discovery's model list: names, none twice, at most {@link MAX_DISCOVERED_MODELS} (the caller cuts a longer one). */
export const validateDiscoveredModels = (models: unknown): string[] => parseStoreArgument(discoveredModels, models, "Discovered models");
