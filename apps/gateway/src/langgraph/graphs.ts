import { ModelProviderRegistry, REACT_GRAPH_ID, ToolRegistry, buildAssistantGraph } from "@axiom-lattice/agent";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { fieldRules as rules } from "@axiom-lattice/core";
import { z } from "zod";
import { HttpError } from "../http/errors";
import { modelSchema } from "../shared/assistantModel";

/**
 * The settings the ReAct graph reads from an assistant's `context`. Other keys are the assistant's
 * own, kept and shown as given.
 */
export const reactContextSchema = z.looseObject({
  model: modelSchema.optional().describe('The model: `{ provider, model?, baseUrl?, apiKey?, temperature? }`; default the built-in `{ "provider": "scripted" }`'),
  system_prompt: rules.string.max(100_000).optional(),
  tools: z.array(z.string().min(1).max(128)).max(100).optional().describe("Names of registered tools (checked when written)"),
});

/** A config's `configurable`, when it is an object. */
export function configurableOf(config: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const configurable = config?.configurable;
  return configurable !== null && typeof configurable === "object" && !Array.isArray(configurable) ? (configurable as Record<string, unknown>) : undefined;
}

const REACT_SETTINGS = ["model", "tools", "system_prompt"];

/** The ReAct graph's settings among `fields` (as older clients give them in `config.configurable`). */
export function reactSettingsIn(fields: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields ?? {}).filter(([key, value]) => REACT_SETTINGS.includes(key) && value !== undefined));
}

/** `given` checked as the ReAct graph's `context`: a bad setting answers 422, naming it. */
export function parseReactContext(given: Record<string, unknown>): z.output<typeof reactContextSchema> {
  const parsed = reactContextSchema.safeParse(given);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new HttpError("INVALID_REQUEST", `context.${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data;
}

const messageSchema = z.looseObject({
  type: z.string().describe("human, ai, tool or system"),
  content: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]),
  id: z.string().optional(),
});
const stateSchema = z.object({ messages: z.array(messageSchema) });

/** The JSON schemas of the ReAct graph, as `GET /assistants/{id}/schemas` answers them. */
export const reactGraphSchemas = () => ({
  graph_id: REACT_GRAPH_ID,
  input_schema: z.toJSONSchema(stateSchema, { io: "input" }),
  output_schema: z.toJSONSchema(stateSchema),
  state_schema: z.toJSONSchema(stateSchema),
  // The graph reads nothing from `config.configurable`: its settings are in `context`.
  config_schema: null,
  context_schema: z.toJSONSchema(reactContextSchema, { io: "input" }),
});

let drawing: Promise<unknown> | undefined;

/** The ReAct graph's nodes and edges (`GET /assistants/{id}/graph`): the same for every assistant. */
export function reactGraphDrawing(): Promise<unknown> {
  // Built-in names only: fresh registries draw it as well as any gateway's.
  drawing ??= buildAssistantGraph({ model: { provider: "scripted" }, tools: [] }, new MemorySaver(), { models: new ModelProviderRegistry(), tools: new ToolRegistry() })
    .getGraphAsync()
    .then((graph) => graph.toJSON());
  return drawing;
}
