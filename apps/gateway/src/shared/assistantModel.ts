import type { AssistantModelConfig } from "@axiom-lattice/protocols";
import { fieldRules as rules } from "@axiom-lattice/core";
import { z } from "zod";

/** What reads show in place of an assistant's API key. */
const API_KEY_MASK = "***";

/** An assistant model's fields, as both APIs check them; `/api` names them in snake_case. */
export const modelFields = {
  provider: rules.text
    .max(128)
    .describe('Model provider: "scripted" (built in, deterministic), "openai" (any OpenAI-compatible API) or the id of one of the tenant\'s model providers'),
  model: rules.text.max(256).optional(),
  baseUrl: z.url().max(2048).optional().describe("http or https only; held to the egress policy (no internal addresses with authentication on; with AXIOM_UPSTREAM_ALLOW set, only what it lists)"),
  apiKey: rules.text
    .max(4096)
    .refine((key) => key !== API_KEY_MASK, `"${API_KEY_MASK}" is what reads show instead of the key, not a key: send the key, or leave the model out to keep it`)
    .optional()
    .describe(`Write-only: stored sealed; reads show "${API_KEY_MASK}". A PATCH that sends \`model\` replaces it whole, key included`),
  temperature: z.number().min(0).max(2).optional(),
};

/** An assistant's model as the LangGraph API's `context.model` takes it (LangGraph's shape, camelCase keys). */
export const modelSchema = z.strictObject(modelFields);

/** A model configuration as reads show it: the API key, when set, masked. */
export const redactModel = (model: AssistantModelConfig): AssistantModelConfig => (model.apiKey ? { ...model, apiKey: API_KEY_MASK } : model);
