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
}

export type UpdateAssistantRequest = Partial<Omit<CreateAssistantRequest, "id">>;

export interface AssistantStore {
  createAssistant(tenantId: string, request: CreateAssistantRequest): Promise<Assistant>;
  getAssistant(tenantId: string, assistantId: string): Promise<Assistant | null>;
  listAssistants(tenantId: string): Promise<Assistant[]>;
  updateAssistant(tenantId: string, assistantId: string, request: UpdateAssistantRequest): Promise<Assistant | null>;
  deleteAssistant(tenantId: string, assistantId: string): Promise<boolean>;
}
