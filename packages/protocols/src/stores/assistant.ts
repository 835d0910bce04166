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
  graph: "react";
  model: AssistantModelConfig;
  systemPrompt?: string;
  tools: string[];
  /** What the assistant is for, in words. */
  description?: string;
  /** Free-form JSON its clients label and find it by (LangGraph's assistant metadata). */
  metadata: Record<string, unknown>;
  /** 1 when created; every update adds one. */
  version: number;
  /** LangGraph's assistant `config`, kept as given: the graph reads none of it. */
  graphConfig: Record<string, unknown>;
  /** LangGraph's assistant `context` beyond the graph's own settings (model, tools, system prompt), kept as given. */
  graphContext: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface CreateAssistantRequest {
  id?: string;
  name: string;
  graph?: "react";
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

export interface AssistantStore {
  createAssistant(tenantId: string, request: CreateAssistantRequest): Promise<Assistant>;
  getAssistant(tenantId: string, assistantId: string): Promise<Assistant | null>;
  listAssistants(tenantId: string): Promise<Assistant[]>;
  updateAssistant(tenantId: string, assistantId: string, request: UpdateAssistantRequest): Promise<Assistant | null>;
  deleteAssistant(tenantId: string, assistantId: string): Promise<boolean>;
}
