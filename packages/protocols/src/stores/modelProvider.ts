import type { Page, PageRequest } from "../page";

/**
 * What speaks to a provider's models: `openai` is any OpenAI-compatible API, `ollama` an Ollama
 * server, `anthropic` Anthropic's API, `scripted` the built-in deterministic model.
 */
export type ModelProviderKind = "openai" | "ollama" | "anthropic" | "scripted";

export const MODEL_PROVIDER_KINDS: readonly ModelProviderKind[] = ["openai", "ollama", "anthropic", "scripted"];

/**
 * A tenant's model provider, as answers show it: the API key is write-only, so only whether one is
 * set is ever read back.
 */
export interface ModelProvider {
  id: string;
  tenantId: string;
  kind: ModelProviderKind;
  /** The API's base URL (`http`/`https`); absent: the kind's default endpoint. */
  baseUrl?: string;
  /** The models it offers; the first is the default of assistants that name none. */
  models: string[];
  /** Switched off: assistants naming it are refused and their runs fail (`MODEL_DISABLED`). */
  enabled: boolean;
  hasApiKey: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A provider with its API key in clear: for building a run's model, never for an answer or a log. */
export interface ModelProviderCredentials extends Omit<ModelProvider, "hasApiKey"> {
  apiKey?: string;
}

export interface CreateModelProviderRequest {
  id: string;
  kind: ModelProviderKind;
  baseUrl?: string;
  models?: string[];
  apiKey?: string;
  /** Absent: enabled. */
  enabled?: boolean;
}

/** The fields given change; `baseUrl: null` / `apiKey: null` remove them. */
export interface UpdateModelProviderRequest {
  kind?: ModelProviderKind;
  baseUrl?: string | null;
  models?: string[];
  apiKey?: string | null;
  enabled?: boolean;
}

/** The most models a discovery records: an API listing more is cut, in its own order, and says so. */
export const MAX_DISCOVERED_MODELS = 1_000;

/** The longest model name a discovery records (as assistants' `model.model` and the catalogue's routes take them). */
export const MAX_MODEL_NAME_LENGTH = 256;

/** A model a provider's API listed at a discovery, with the operator's flag on it. */
export interface ProviderModel {
  providerId: string;
  model: string;
  /** The operator's choice; a discovery never changes it (new models start enabled). */
  enabled: boolean;
  /** False once a later discovery no longer found it upstream: kept, with its flag, not deleted. */
  available: boolean;
  /** When a discovery first found it. */
  discoveredAt: Date;
  /** When a discovery last found it. */
  lastSeenAt: Date;
}

/** What recording a discovery changed. */
export interface DiscoveryRecord {
  /** Models listed now (all available). */
  models: number;
  /** Models first found by this discovery. */
  added: number;
  /** Models this discovery no longer found, marked unavailable. */
  vanished: number;
}

/** The per-tenant catalog of model providers. Implementations keep API keys sealed at rest. */
export interface ModelProviderStore {
  createProvider(tenantId: string, request: CreateModelProviderRequest): Promise<ModelProvider>;
  getProvider(tenantId: string, providerId: string): Promise<ModelProvider | null>;
  /** The tenant's providers, oldest first (ties: by id). */
  listProviders(tenantId: string, page: PageRequest): Promise<Page<ModelProvider>>;
  updateProvider(tenantId: string, providerId: string, request: UpdateModelProviderRequest): Promise<ModelProvider | null>;
  deleteProvider(tenantId: string, providerId: string): Promise<boolean>;
  /** The provider with its key opened, read when a run builds its model. */
  getProviderCredentials(tenantId: string, providerId: string): Promise<ModelProviderCredentials | null>;
  /**
   * Records the models a discovery found (distinct names, at most {@link MAX_DISCOVERED_MODELS}) in
   * one step: new ones enabled, known ones keep their flag and are available again, the provider's
   * others marked unavailable. Null when the provider does not exist. A deleted provider's models go with it.
   */
  recordDiscovery(tenantId: string, providerId: string, models: readonly string[]): Promise<DiscoveryRecord | null>;
  /** The provider's discovered models, by name (code-unit order). */
  listModels(tenantId: string, providerId: string, page: PageRequest): Promise<Page<ProviderModel>>;
  /** One discovered model; null when the provider has no such model. */
  getModel(tenantId: string, providerId: string, model: string): Promise<ProviderModel | null>;
  /** Sets the operator's flag on a discovered model; null when the provider has no such model. */
  setModelEnabled(tenantId: string, providerId: string, model: string, enabled: boolean): Promise<ProviderModel | null>;
}
