import { REACT_GRAPH_ID } from "@axiom-lattice/agent";
import type { Assistant, AssistantModelConfig, AssistantVersion } from "@axiom-lattice/protocols";
import { z } from "zod";
import { redactModel } from "../shared/assistantModel";
import type { reactContextSchema } from "./graphs";

const jsonObject = z.record(z.string(), z.unknown());

/** An assistant as the LangGraph API shows it. */
export const assistantView = z.object({
  assistant_id: z.string(),
  graph_id: z.string(),
  config: jsonObject.describe("As given: a deployed graph's runs get its `configurable`"),
  context: jsonObject.describe('As given to a deployed graph; the ReAct graph\'s settings (`model` with its API key shown as "***", `tools`, `system_prompt`) and the assistant\'s own keys'),
  metadata: jsonObject,
  name: z.string(),
  description: z.string().nullable(),
  version: z.number().int().describe("The current version: 1 when created, a new one per update, or the one `POST /assistants/{id}/latest` chose"),
  created_at: z.date(),
  updated_at: z.date(),
}).meta({ id: "LangGraphAssistant" });

export type AssistantView = z.input<typeof assistantView>;

/** One version of an assistant as the LangGraph API shows it: its fields then, `created_at` when it was made. */
export const assistantVersionView = assistantView.omit({ updated_at: true }).meta({ id: "LangGraphAssistantVersion" });

type AssistantVersionView = z.input<typeof assistantVersionView>;

/** How a stored assistant reads in LangGraph's terms: its graph settings shown in its `context`. */
export function toAssistantView(assistant: Assistant): AssistantView {
  return { ...fieldsView(assistant.id, assistant), updated_at: assistant.updatedAt };
}

export function toAssistantVersionView(version: AssistantVersion): AssistantVersionView {
  return fieldsView(version.assistantId, version);
}

function fieldsView(id: string, assistant: Omit<Assistant, "id" | "updatedAt">): AssistantVersionView {
  return {
    assistant_id: id,
    graph_id: assistant.graph,
    config: assistant.graphConfig,
    context: assistant.graph === REACT_GRAPH_ID ? reactContextOf(assistant) : assistant.graphContext,
    metadata: assistant.metadata,
    name: assistant.name,
    description: assistant.description ?? null,
    version: assistant.version,
    created_at: assistant.createdAt,
  };
}

/** The ReAct graph's settings shown in its assistant's context, beside the assistant's own keys. */
const reactContextOf = (assistant: Omit<Assistant, "id" | "updatedAt">) => ({
  ...assistant.graphContext,
  model: redactModel(assistant.model),
  tools: assistant.tools,
  ...(assistant.systemPrompt ? { system_prompt: assistant.systemPrompt } : {}),
});

/** An assistant's `context`, split into the graph's settings (stored as such) and the assistant's own keys. */
export interface AssistantSettings {
  model: AssistantModelConfig;
  tools: string[];
  /** `""` when the context names none: an update clears the stored prompt. */
  systemPrompt: string;
  graphContext: Record<string, unknown>;
}

/** The settings in a validated context; what it leaves out takes the graph's default. */
export function settingsOf(context: z.output<typeof reactContextSchema> = {}): AssistantSettings {
  const { model, tools, system_prompt: systemPrompt, ...graphContext } = context;
  return { model: model ?? { provider: "scripted" }, tools: tools ?? [], systemPrompt: systemPrompt ?? "", graphContext };
}
