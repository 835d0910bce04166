import type { Assistant, AssistantModelConfig } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import { HttpError } from "../http/errors";
import { BODY_CODES, INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { type AssistantReferenceSources, REFERENCE_CODES, assistantReferenceCheck } from "./assistantReferences";
import { idParams, idSchema, noContent } from "../http/ids";
import type { GatewayStores } from "../stores/gatewayStores";

/** What reads show in place of an assistant's API key. */
const API_KEY_MASK = "***";

export const modelSchema = z.strictObject({
  provider: z
    .string()
    .min(1)
    .max(128)
    .describe('Model provider: "scripted" (built in, deterministic), "openai" (any OpenAI-compatible API) or the id of one of the tenant\'s model providers'),
  model: z.string().min(1).max(256).optional(),
  baseUrl: z.url().max(2048).optional().describe("http or https only; held to the egress policy (no internal addresses with authentication on; with AXIOM_UPSTREAM_ALLOW set, only what it lists)"),
  apiKey: z
    .string()
    .min(1)
    .max(4096)
    .refine((key) => key !== API_KEY_MASK, `"${API_KEY_MASK}" is what reads show instead of the key, not a key: send the key, or leave the model out to keep it`)
    .optional()
    .describe(`Write-only: stored sealed; reads show "${API_KEY_MASK}". A PATCH that sends \`model\` replaces it whole, key included`),
  temperature: z.number().min(0).max(2).optional(),
});

const createSchema = z.strictObject({
  id: idSchema.optional().describe("Chosen by the client, unique within the tenant; generated when absent"),
  name: z.string().trim().min(1).max(200),
  graph: z.literal("react").optional(),
  model: modelSchema.default({ provider: "scripted" }),
  systemPrompt: z.string().max(100_000).optional(),
  tools: z.array(z.string().min(1).max(128)).max(100).optional().describe("Names of registered tools (checked when written)"),
});

// Without the create default on `model`: a PATCH that leaves the model out keeps it.
const updateSchema = createSchema.omit({ id: true }).extend({ model: modelSchema }).partial();

const assistantView = z.object({
  id: z.string(),
  tenantId: z.string(),
  name: z.string(),
  graph: z.literal("react"),
  model: modelSchema.extend({ apiKey: z.string().optional().describe('"***" when set: never echoed back') }),
  systemPrompt: z.string().optional(),
  tools: z.array(z.string()),
  createdAt: z.date(),
  updatedAt: z.date(),
}).meta({ id: "Assistant" });

const tags = ["assistants"];

/** A model configuration as reads show it: the API key, when set, masked. */
export const redactModel = (model: AssistantModelConfig): AssistantModelConfig => (model.apiKey ? { ...model, apiKey: API_KEY_MASK } : model);

/** The assistants, and where the names their configurations give are looked up. */
export interface AssistantRoutesOptions extends AssistantReferenceSources {
  stores: Pick<GatewayStores, "assistants" | "modelProviders">;
}

/** Assistants CRUD, per tenant. API keys are never echoed back. */
export const assistantRoutes: FastifyPluginAsyncZod<AssistantRoutesOptions> = async (app, options) => {
  const { assistants } = options.stores;
  const checkReferences = assistantReferenceCheck(options);
  // The fields of this API: description, metadata, version and the graph's config and context belong to the LangGraph API's view.
  const redact = ({ description: _d, metadata: _m, version: _v, graphConfig: _c, graphContext: _x, ...assistant }: Assistant) =>
    assistant.model.apiKey ? { ...assistant, model: redactModel(assistant.model) } : assistant;
  const notFound = (id: string) => new HttpError("NOT_FOUND", `Assistant ${id} not found`);

  app.post(
    "/api/assistants",
    {
      schema: {
        tags,
        summary: "Create an assistant",
        body: createSchema,
        response: { 201: assistantView, ...apiErrors(...BODY_CODES, ...REFERENCE_CODES, "ALREADY_EXISTS") },
      },
    },
    async (request, reply) => {
      await checkReferences(tenantOf(request), request.body);
      const assistant = await assistants.createAssistant(tenantOf(request), request.body);
      return reply.status(201).send(redact(assistant));
    },
  );

  app.get(
    "/api/assistants",
    { schema: { tags, summary: "List the tenant's assistants", response: { 200: z.object({ assistants: z.array(assistantView) }), ...apiErrors() } } },
    async (request) => ({ assistants: (await assistants.listAssistants(tenantOf(request))).map(redact) }),
  );

  app.get(
    "/api/assistants/:id",
    { schema: { tags, summary: "Read an assistant", params: idParams, response: { 200: assistantView, ...apiErrors(...INPUT_CODES, "NOT_FOUND") } } },
    async (request) => {
      const assistant = await assistants.getAssistant(tenantOf(request), request.params.id);
      if (!assistant) throw notFound(request.params.id);
      return redact(assistant);
    },
  );

  app.patch(
    "/api/assistants/:id",
    {
      schema: {
        tags,
        summary: "Change an assistant (the fields given)",
        params: idParams,
        body: updateSchema,
        response: { 200: assistantView, ...apiErrors(...BODY_CODES, ...REFERENCE_CODES, "NOT_FOUND") },
      },
    },
    async (request) => {
      await checkReferences(tenantOf(request), request.body);
      const assistant = await assistants.updateAssistant(tenantOf(request), request.params.id, request.body);
      if (!assistant) throw notFound(request.params.id);
      return redact(assistant);
    },
  );

  app.delete(
    "/api/assistants/:id",
    { schema: { tags, summary: "Delete an assistant", params: idParams, response: { 204: noContent, ...apiErrors(...INPUT_CODES, "NOT_FOUND") } } },
    async (request, reply) => {
      if (!(await assistants.deleteAssistant(tenantOf(request), request.params.id))) throw notFound(request.params.id);
      return reply.status(204).send();
    },
  );
};
