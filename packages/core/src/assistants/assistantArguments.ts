import { randomUUID } from "node:crypto";
import type { AssistantModelConfig, AssistantVersionQuery, CreateAssistantRequest, UpdateAssistantRequest } from "@axiom-lattice/protocols";
import { z } from "zod";
import { fieldRules as rules } from "../validation/fieldRules";
import { definedFields, parseStoreArgument } from "../validation/parseStoreArgument";

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

/** The longest graph id: graphs are named by their operator (`langgraph.json`), checked against what is deployed at the edge. */
const MAX_GRAPH_ID_LENGTH = 128;

const jsonObject = rules.storedJsonObject;

const model = z.object(
  {
    provider: rules.text,
    model: rules.text.optional(),
    baseUrl: rules.text.optional(),
    apiKey: rules.text.optional(),
    temperature: rules.nonNegativeNumber.optional(),
  },
  { error: "must be an object" },
);

const fields = {
  name: rules.text,
  graph: rules.text.max(MAX_GRAPH_ID_LENGTH, `must be at most ${MAX_GRAPH_ID_LENGTH} characters`),
  model,
  systemPrompt: rules.string,
  tools: z.array(rules.text, { error: "must be an array of tool names" }),
  description: rules.string,
  metadata: jsonObject,
  graphConfig: jsonObject,
  graphContext: jsonObject,
};

const createSchema = z.object(
  {
    id: rules.text.default(() => randomUUID()),
    ...fields,
    graph: fields.graph.default("react"),
    systemPrompt: fields.systemPrompt.optional(),
    tools: fields.tools.default([]),
    description: fields.description.optional(),
    metadata: jsonObject.default({}),
    graphConfig: jsonObject.default({}),
    graphContext: jsonObject.default({}),
  },
  { error: "must be an object" },
);

const updateSchema = z.object(fields, { error: "must be an object" }).partial();

export function validateCreateAssistant(request: CreateAssistantRequest): ValidAssistant {
  const valid = parseStoreArgument(createSchema, request, "Assistant");
  return definedFields({ ...valid, model: definedFields(valid.model) });
}

export function validateUpdateAssistant(request: UpdateAssistantRequest): ValidAssistantUpdate {
  const valid = parseStoreArgument(updateSchema, request, "Assistant update");
  return definedFields({ ...valid, ...(valid.model ? { model: definedFields(valid.model) } : {}) });
}

const versionQuery = z.object(
  { metadata: jsonObject.optional(), limit: rules.integer(1), offset: rules.offset },
  { error: "must be an object" },
);

export function validateAssistantVersionQuery(query: AssistantVersionQuery): AssistantVersionQuery {
  return definedFields(parseStoreArgument(versionQuery, query, "Assistant version query"));
}

export function validateAssistantVersion(version: unknown): number {
  return parseStoreArgument(rules.integer(1), version, "Assistant version");
}
