import type { Assistant, AssistantModelConfig } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { fieldRules as rules } from "@axiom-lattice/core";
import { z } from "zod";
import { principalOf, tenantOf } from "../auth/authentication";
import { HttpError } from "../http/errors";
import { BODY_CODES, INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { modelFields, redactModel } from "../shared/assistantModel";
import { type AssistantReferenceSources, REFERENCE_CODES, assistantReferenceCheck } from "../shared/assistantReferences";
import { requireAssistant, requireCreatable, requireUsable, usableOnly } from "../shared/lookups";
import { idParams, idSchema, noContent } from "../http/ids";
import { pageBody, pageQuery, pageView } from "../http/pageWire";
import type { GatewayStores } from "../stores/gatewayStores";

/** An assistant's model as `/api` takes it. */
const apiModelSchema = z.strictObject({
  provider: modelFields.provider,
  model: modelFields.model,
  base_url: modelFields.baseUrl,
  api_key: modelFields.apiKey,
  temperature: modelFields.temperature,
});
type ApiModel = z.infer<typeof apiModelSchema>;

const createSchema = z.strictObject({
  id: idSchema.optional().describe("Chosen by the client, unique within the tenant; generated when absent"),
  name: rules.string.trim().min(1).max(200),
  graph: z.literal("react").optional(),
  model: apiModelSchema.default({ provider: "scripted" }),
  system_prompt: rules.string.max(100_000).optional(),
  tools: z.array(rules.text.max(128)).max(100).optional().describe("Names of registered tools (checked when written)"),
});

// Without the create default on `model`: a PATCH that leaves the model out keeps it.
const updateSchema = createSchema.omit({ id: true }).extend({ model: apiModelSchema }).partial();

const assistantView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    name: z.string(),
    graph: z.string().describe("react (the built-in ReAct agent) or a graph of the operator's langgraph.json"),
    model: apiModelSchema.extend({ api_key: z.string().optional().describe('"***" when set: never echoed back') }),
    system_prompt: z.string().optional(),
    tools: z.array(z.string()),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: "Assistant" });
type AssistantView = z.infer<typeof assistantView>;

/** The store's model configuration of an `/api` one. */
function modelOf({ base_url, api_key, ...model }: ApiModel): AssistantModelConfig {
  return { ...model, ...(base_url === undefined ? {} : { baseUrl: base_url }), ...(api_key === undefined ? {} : { apiKey: api_key }) };
}

/** What `/api` shows of an assistant: its fields of this API, the key masked. (Description, metadata, version, the graph's config and context are the LangGraph API's.) */
function toAssistantView(assistant: Assistant): AssistantView {
  const { baseUrl, apiKey, ...model } = redactModel(assistant.model);
  return {
    id: assistant.id,
    tenant_id: assistant.tenantId,
    name: assistant.name,
    graph: assistant.graph,
    model: { ...model, base_url: baseUrl, api_key: apiKey },
    system_prompt: assistant.systemPrompt,
    tools: assistant.tools,
    created_at: assistant.createdAt,
    updated_at: assistant.updatedAt,
  };
}

/** The store's create or update request of an `/api` body. */
function requestOf<B extends { model?: ApiModel; system_prompt?: string }>({
  model,
  system_prompt,
  ...rest
}: B): Omit<B, "model" | "system_prompt"> & { systemPrompt?: string } & (undefined extends B["model"] ? { model?: AssistantModelConfig } : { model: AssistantModelConfig }) {
  return { ...rest, ...(model === undefined ? {} : { model: modelOf(model) }), ...(system_prompt === undefined ? {} : { systemPrompt: system_prompt }) } as never;
}

const tags = ["assistants"];

/** The assistants, and where the names their configurations give are looked up. */
export interface AssistantRoutesOptions extends AssistantReferenceSources {
  stores: Pick<GatewayStores, "assistants" | "modelProviders">;
}

/** Assistants CRUD, per tenant. API keys are never echoed back. */
export const assistantRoutes: FastifyPluginAsyncZod<AssistantRoutesOptions> = async (app, options) => {
  const { assistants } = options.stores;
  const checkReferences = assistantReferenceCheck(options);
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
      requireCreatable(principalOf(request), request.body.id);
      const create = requestOf(request.body);
      await checkReferences(tenantOf(request), create);
      const assistant = await assistants.createAssistant(tenantOf(request), create);
      return reply.status(201).send(toAssistantView(assistant));
    },
  );

  app.get(
    "/api/assistants",
    {
      schema: {
        tags,
        summary: "List the tenant's assistants, oldest first",
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("assistants", assistantView), ...apiErrors(...INPUT_CODES, "INVALID_CURSOR") },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const page = await assistants.listAssistants(principal.tenantId, request.query);
      // A restricted key's page holds only its assistants: it may be short, the cursor still walks every page.
      return pageBody("assistants", { ...page, items: usableOnly(principal, page.items, (assistant) => assistant.id) }, toAssistantView);
    },
  );

  app.get(
    "/api/assistants/:id",
    { schema: { tags, summary: "Read an assistant", params: idParams, response: { 200: assistantView, ...apiErrors(...INPUT_CODES, "NOT_FOUND") } } },
    async (request) => toAssistantView(await requireAssistant(options, principalOf(request), request.params.id)),
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
      requireUsable(principalOf(request), request.params.id);
      const update = requestOf(request.body);
      await checkReferences(tenantOf(request), update);
      const assistant = await assistants.updateAssistant(tenantOf(request), request.params.id, update);
      if (!assistant) throw notFound(request.params.id);
      return toAssistantView(assistant);
    },
  );

  app.delete(
    "/api/assistants/:id",
    { schema: { tags, summary: "Delete an assistant", params: idParams, response: { 204: noContent, ...apiErrors(...INPUT_CODES, "NOT_FOUND") } } },
    async (request, reply) => {
      requireUsable(principalOf(request), request.params.id);
      if (!(await assistants.deleteAssistant(tenantOf(request), request.params.id))) throw notFound(request.params.id);
      return reply.status(204).send();
    },
  );
};
