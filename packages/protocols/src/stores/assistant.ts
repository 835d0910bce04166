import type { Page, PageRequest } from "../page";

/** Which model an assistant talks to. `provider: "scripted"` is the built-in deterministic model. */
export interface AssistantModelConfig {
  provider: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  temperature?: number;
}

/** A stored agent configuration. */
export interface Assistant {
  id: string;
  tenantId: string;
  name: string;
  /** The graph it runs: `react` (the built-in ReAct agent) or a graph the operator deployed (`langgraph.json`). */
  graph: string;
  model: AssistantModelConfig;
  systemPrompt?: string;
  tools: string[];
  /** What the assistant is for, in words. */
  description?: string;
  /** Free-form JSON its clients label and find it by (LangGraph's assistant metadata). */
  metadata: Record<string, unknown>;
  /** The version the assistant's fields are: 1 when created, a new one per update, or one chosen again ({@link AssistantStore.setCurrentAssistantVersion}). */
  version: number;
  /** LangGraph's assistant `config`, kept as given: a deployed graph's runs get its `configurable`; the ReAct graph reads none of it. */
  graphConfig: Record<string, unknown>;
  /** LangGraph's assistant `context` beyond the ReAct graph's own settings (model, tools, system prompt), kept as given; a deployed graph's runs get it. */
  graphContext: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface CreateAssistantRequest {
  id?: string;
  name: string;
  /** Default `react`. */
  graph?: string;
  model: AssistantModelConfig;
  systemPrompt?: string;
  tools?: string[];
  description?: string;
  metadata?: Record<string, unknown>;
  graphConfig?: Record<string, unknown>;
  graphContext?: Record<string, unknown>;
}

/** The fields given replace the stored ones, but `metadata`, which is merged into the stored metadata (top-level keys). */
export type UpdateAssistantRequest = Partial<Omit<CreateAssistantRequest, "id">>;

/** One version of an assistant: its fields as a create or an update left them, kept unchanged. */
export interface AssistantVersion extends Omit<Assistant, "id" | "updatedAt"> {
  assistantId: string;
  /** When the version was made. */
  createdAt: Date;
}

export interface AssistantVersionQuery {
  /** Only versions whose metadata contains this object (as jsonb `@>` judges it). */
  metadata?: Record<string, unknown>;
  /** At least 1. */
  limit: number;
  offset: number;
}

/**
 * Every create and update of an assistant makes a version, numbered 1, 2, 3… per assistant (a number
 * is never given twice, also when updates race); the assistant's fields are its current version's.
 */
export interface AssistantStore {
  createAssistant(tenantId: string, request: CreateAssistantRequest): Promise<Assistant>;
  getAssistant(tenantId: string, assistantId: string): Promise<Assistant | null>;
  /** The tenant's assistants, oldest first (ties: by id). */
  listAssistants(tenantId: string, page: PageRequest): Promise<Page<Assistant>>;
  updateAssistant(tenantId: string, assistantId: string, request: UpdateAssistantRequest): Promise<Assistant | null>;
  /** Deletes its versions too. */
  deleteAssistant(tenantId: string, assistantId: string): Promise<boolean>;
  /** The assistant's versions, newest first; null when the tenant has no such assistant. */
  listAssistantVersions(tenantId: string, assistantId: string, query: AssistantVersionQuery): Promise<AssistantVersion[] | null>;
  /** Makes one of its versions the current one: the assistant's fields become that version's. Null when the tenant has no such assistant or it no such version. */
  setCurrentAssistantVersion(tenantId: string, assistantId: string, version: number): Promise<Assistant | null>;
}
