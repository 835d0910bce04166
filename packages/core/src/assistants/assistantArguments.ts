import { randomUUID } from "node:crypto";
import type { AssistantModelConfig, AssistantVersionQuery, CreateAssistantRequest, UpdateAssistantRequest } from "@axiom-lattice/protocols";
import { StoreArgumentError, optionalString, optionalText, requireBoundedJson, requireInteger, requireObject, requireText } from "../stores/storeArguments";

// Checks shared by every AssistantStore, so bad input is refused alike and before any write. Only
// known keys are kept, so a store never persists stray input.

export interface ValidAssistant {
  id: string;
  name: string;
  graph: string;
  model: AssistantModelConfig;
  systemPrompt?: string;
  tools: string[];
  description?: string;
  metadata: Record<string, unknown>;
  graphConfig: Record<string, unknown>;
  graphContext: Record<string, unknown>;
}

export type ValidAssistantUpdate = Partial<Omit<ValidAssistant, "id">>;

/** A free-form JSON object within the bounds every store keeps (a copy: the store never shares the caller's). */
function validateJsonObject(value: unknown, what: string): Record<string, unknown> {
  return JSON.parse(requireBoundedJson(requireObject(value, what), what)) as Record<string, unknown>;
}

/** The longest graph id: graphs are named by their operator (`langgraph.json`), checked against what is deployed at the edge. */
const MAX_GRAPH_ID_LENGTH = 128;

function validateGraph(graph: unknown): string {
  const id = requireText(graph, "Assistant graph");
  if (id.length > MAX_GRAPH_ID_LENGTH) throw new StoreArgumentError(`Assistant graph must be at most ${MAX_GRAPH_ID_LENGTH} characters`);
  return id;
}

function validateModel(model: unknown): AssistantModelConfig {
  const checked = requireObject(model, "Assistant model");
  const temperature = checked.temperature;
  if (temperature !== undefined && (typeof temperature !== "number" || !Number.isFinite(temperature) || temperature < 0)) {
    throw new StoreArgumentError("Assistant model temperature must be a finite number of at least 0");
  }
  const config: AssistantModelConfig = { provider: requireText(checked.provider, "Assistant model provider") };
  const modelName = optionalText(checked.model, "Assistant model name");
  const baseUrl = optionalText(checked.baseUrl, "Assistant model baseUrl");
  const apiKey = optionalText(checked.apiKey, "Assistant model apiKey");
  if (modelName !== undefined) config.model = modelName;
  if (baseUrl !== undefined) config.baseUrl = baseUrl;
  if (apiKey !== undefined) config.apiKey = apiKey;
  if (temperature !== undefined) config.temperature = temperature as number;
  return config;
}

function validateTools(tools: unknown): string[] {
  if (!Array.isArray(tools)) throw new StoreArgumentError("Assistant tools must be an array of tool names");
  return tools.map((tool) => requireText(tool, "Assistant tool name"));
}

export function validateCreateAssistant(request: CreateAssistantRequest): ValidAssistant {
  const checked = requireObject(request, "Assistant");
  const systemPrompt = optionalString(checked.systemPrompt, "Assistant systemPrompt");
  const description = optionalString(checked.description, "Assistant description");
  return {
    id: checked.id === undefined ? randomUUID() : requireText(checked.id, "Assistant id"),
    name: requireText(checked.name, "Assistant name"),
    graph: validateGraph(checked.graph ?? "react"),
    model: validateModel(checked.model),
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
    tools: validateTools(checked.tools ?? []),
    ...(description === undefined ? {} : { description }),
    metadata: validateJsonObject(checked.metadata ?? {}, "Assistant metadata"),
    graphConfig: validateJsonObject(checked.graphConfig ?? {}, "Assistant graphConfig"),
    graphContext: validateJsonObject(checked.graphContext ?? {}, "Assistant graphContext"),
  };
}

export function validateUpdateAssistant(request: UpdateAssistantRequest): ValidAssistantUpdate {
  const checked = requireObject(request, "Assistant update");
  const update: ValidAssistantUpdate = {};
  if (checked.name !== undefined) update.name = requireText(checked.name, "Assistant name");
  if (checked.graph !== undefined) update.graph = validateGraph(checked.graph);
  if (checked.model !== undefined) update.model = validateModel(checked.model);
  if (checked.systemPrompt !== undefined) update.systemPrompt = optionalString(checked.systemPrompt, "Assistant systemPrompt");
  if (checked.tools !== undefined) update.tools = validateTools(checked.tools);
  if (checked.description !== undefined) update.description = optionalString(checked.description, "Assistant description");
  if (checked.metadata !== undefined) update.metadata = validateJsonObject(checked.metadata, "Assistant metadata");
  if (checked.graphConfig !== undefined) update.graphConfig = validateJsonObject(checked.graphConfig, "Assistant graphConfig");
  if (checked.graphContext !== undefined) update.graphContext = validateJsonObject(checked.graphContext, "Assistant graphContext");
  return update;
}

export function validateAssistantVersionQuery(query: AssistantVersionQuery): AssistantVersionQuery {
  const checked = requireObject(query, "Assistant version query");
  return {
    ...(checked.metadata === undefined ? {} : { metadata: validateJsonObject(checked.metadata, "Assistant version metadata filter") }),
    limit: requireInteger(checked.limit, "Assistant version limit", 1),
    offset: requireInteger(checked.offset, "Assistant version offset", 0),
  };
}

export function validateAssistantVersion(version: unknown): number {
  return requireInteger(version, "Assistant version", 1);
}
