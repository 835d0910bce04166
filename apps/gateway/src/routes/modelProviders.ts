import {
  type AgentInstanceManager,
  type ConnectionTestResult,
  type DiscoveryResult,
  UpstreamError,
  discoverProviderModels,
  testProviderConnection,
} from "@axiom-lattice/agent";
import { checkEgressUrl, EgressRefusedError, fieldRules as rules } from "@axiom-lattice/core";
import { MAX_DISCOVERED_MODELS, MAX_MODEL_NAME_LENGTH, MODEL_PROVIDER_KINDS, type ModelProvider, type ProviderModel } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import type { GatewayConfig } from "../config";
import { HttpError } from "../http/errors";
import { BODY_CODES, INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { idParams, idSchema, noContent } from "../http/ids";
import { pageBody, pageQuery, pageView } from "../http/pageWire";
import type { GatewayStores } from "../stores/gatewayStores";

export interface ModelProviderRoutesOptions {
  stores: Pick<GatewayStores, "modelProviders">;
  /** Its egress policy, which a provider's base URL is held to, and the key of providers that have none. */
  config: Pick<GatewayConfig, "upstream" | "openAiApiKey">;
  /** The built-in providers, whose names a catalog provider may not take. */
  agents: Pick<AgentInstanceManager, "models">;
}

const baseUrlSchema = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .describe("The API's base URL, http or https (Ollama's and Anthropic's with or without `/v1`); absent: the kind's default endpoint");
const apiKeySchema = rules.text.max(4096).describe("Write-only: stored sealed, never returned");

const createSchema = z.strictObject({
  id: idSchema.describe('Unique within the tenant; assistants name it in `model.provider`. Not a built-in ("scripted", "openai")'),
  kind: z
    .enum(MODEL_PROVIDER_KINDS)
    .describe('"openai": any OpenAI-compatible API; "ollama": an Ollama server; "anthropic": Anthropic\'s API; "scripted": the built-in deterministic model'),
  base_url: baseUrlSchema.optional(),
  models: z.array(rules.text.max(256)).max(100).optional().describe("Models it offers; the first is the default"),
  api_key: apiKeySchema.optional(),
  enabled: z.boolean().optional().describe("false: assistants naming it are refused and their runs fail (MODEL_DISABLED); absent: true"),
});

const updateSchema = z.strictObject({
  kind: createSchema.shape.kind.optional(),
  base_url: baseUrlSchema.nullable().optional().describe("null removes it"),
  models: createSchema.shape.models,
  api_key: apiKeySchema.nullable().optional().describe("null removes it; omitted, the key stays, but a new base_url or kind needs it again (SECRETS_REQUIRED)"),
  enabled: createSchema.shape.enabled,
});

const providerView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    kind: z.enum(MODEL_PROVIDER_KINDS),
    base_url: z.string().optional(),
    models: z.array(z.string()),
    enabled: z.boolean(),
    has_api_key: z.boolean().describe("Whether a key is set; the key itself is never returned"),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: "ModelProvider" });

/** What the API shows of a provider. */
function toProviderView(provider: ModelProvider): z.infer<typeof providerView> {
  return {
    id: provider.id,
    tenant_id: provider.tenantId,
    kind: provider.kind,
    base_url: provider.baseUrl,
    models: provider.models,
    enabled: provider.enabled,
    has_api_key: provider.hasApiKey,
    created_at: provider.createdAt,
    updated_at: provider.updatedAt,
  };
}

const UPSTREAM_CODES = [
  "UPSTREAM_UNREACHABLE",
  "UPSTREAM_AUTH_FAILED",
  "UPSTREAM_REDIRECT_BLOCKED",
  "UPSTREAM_INVALID_RESPONSE",
  "UPSTREAM_RATE_LIMITED",
  "UPSTREAM_TIMEOUT",
] as const satisfies readonly ConnectionTestResult["code"][];

const connectionTestView = z
  .object({
    reachable: z.boolean().describe("false only when the API itself failed: `code` says how"),
    latency_ms: z.number().int().min(0).describe("How long the call took"),
    code: z.enum(UPSTREAM_CODES).optional(),
    error: z.string().optional(),
    models_count: z.number().int().min(0).optional().describe(`How many models the API lists, when reachable (a paged list is read only until past ${MAX_DISCOVERED_MODELS}: at least this many)`),
  })
  .meta({ id: "ModelProviderConnectionTest" });

function toConnectionTestView(result: ConnectionTestResult): z.infer<typeof connectionTestView> {
  return { reachable: result.reachable, latency_ms: result.latencyMs, code: result.code, error: result.error, models_count: result.modelsCount };
}

const discoveryView = z
  .object({
    models_count: z.number().int().min(0).describe("Models recorded now, all available"),
    added: z.number().int().min(0).describe("Models first found by this discovery (enabled)"),
    vanished: z.number().int().min(0).describe("Models no longer listed upstream: kept, with their flag, as `available: false`"),
    listed_count: z.number().int().min(0).describe(`Distinct models the API listed (a paged list is read only until past ${MAX_DISCOVERED_MODELS}: at least this many)`),
    truncated: z.boolean().describe(`The API listed more than ${MAX_DISCOVERED_MODELS}: only the first ones, in its order, were recorded`),
  })
  .meta({ id: "ModelDiscovery" });

function toDiscoveryView(result: DiscoveryResult): z.infer<typeof discoveryView> {
  return { models_count: result.models, added: result.added, vanished: result.vanished, listed_count: result.listed, truncated: result.truncated };
}

const providerModelView = z
  .object({
    provider_id: z.string(),
    model: z.string(),
    enabled: z.boolean().describe("The operator's flag; a discovery never changes it"),
    available: z.boolean().describe("false: the last discovery no longer found it upstream"),
    discovered_at: z.date(),
    last_seen_at: z.date().describe("When a discovery last found it"),
  })
  .meta({ id: "ProviderModel" });

function toProviderModelView(model: ProviderModel): z.infer<typeof providerModelView> {
  return {
    provider_id: model.providerId,
    model: model.model,
    enabled: model.enabled,
    available: model.available,
    discovered_at: model.discoveredAt,
    last_seen_at: model.lastSeenAt,
  };
}

const modelParams = z.object({ id: idSchema, model: z.string().min(1).max(MAX_MODEL_NAME_LENGTH).describe("The model's name, URL-encoded (names may hold `/` or `:`)") });
const modelFlagSchema = z.strictObject({ enabled: z.boolean().describe("false: assistants naming the model are refused and their runs fail (MODEL_DISABLED)") });

/** An upstream failure of a discovery as the client hears it: its `UPSTREAM_*` code (a 5xx), not an internal error. */
function asHttpFailure(error: unknown): unknown {
  const upstream = error instanceof UpstreamError || (error instanceof EgressRefusedError && error.code === "UPSTREAM_REDIRECT_BLOCKED");
  return upstream ? new HttpError(error.code, error.message) : error;
}

/** The store's fields of a create or update body (`null` kept: it removes the field). */
function providerFieldsOf<B extends { base_url?: string | null; api_key?: string | null }>({
  base_url,
  api_key,
  ...rest
}: B): Omit<B, "base_url" | "api_key"> & { baseUrl?: Exclude<B["base_url"], undefined>; apiKey?: Exclude<B["api_key"], undefined> } {
  return { ...rest, ...(base_url === undefined ? {} : { baseUrl: base_url }), ...(api_key === undefined ? {} : { apiKey: api_key }) } as never;
}

const tags = ["model providers"];

/** The tenant's model provider catalog. Keys are write-only. */
export const modelProviderRoutes: FastifyPluginAsyncZod<ModelProviderRoutesOptions> = async (app, { stores, config, agents }) => {
  const { modelProviders } = stores;
  // A provider's base URL is where runs send the key: held to the same egress policy as an assistant's.
  const checkBaseUrl = async (baseUrl: string | null | undefined) => {
    if (typeof baseUrl === "string") await checkEgressUrl(baseUrl, config.upstream.egress);
  };
  const notFound = (id: string) => new HttpError("NOT_FOUND", `Model provider ${id} not found`);

  app.post(
    "/api/model-providers",
    {
      schema: {
        tags,
        summary: "Add a model provider",
        body: createSchema,
        response: { 201: providerView, ...apiErrors(...BODY_CODES, "ALREADY_EXISTS", "BASE_URL_NOT_ALLOWED") },
      },
    },
    async (request, reply) => {
      // A catalog entry named like a built-in would be shadowed by it in every assistant.
      if (agents.models.has(request.body.id)) throw new HttpError("ALREADY_EXISTS", `"${request.body.id}" is a built-in model provider`);
      await checkBaseUrl(request.body.base_url);
      return reply.status(201).send(toProviderView(await modelProviders.createProvider(tenantOf(request), providerFieldsOf(request.body))));
    },
  );

  app.get(
    "/api/model-providers",
    {
      schema: {
        tags,
        summary: "List the tenant's model providers, oldest first",
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("providers", providerView), ...apiErrors(...INPUT_CODES, "INVALID_CURSOR") },
      },
    },
    async (request) => pageBody("providers", await modelProviders.listProviders(tenantOf(request), request.query), toProviderView),
  );

  app.get(
    "/api/model-providers/:id",
    { schema: { tags, summary: "Read a model provider", params: idParams, response: { 200: providerView, ...apiErrors(...INPUT_CODES, "NOT_FOUND") } } },
    async (request) => {
      const provider = await modelProviders.getProvider(tenantOf(request), request.params.id);
      if (!provider) throw notFound(request.params.id);
      return toProviderView(provider);
    },
  );

  app.patch(
    "/api/model-providers/:id",
    {
      schema: {
        tags,
        summary: "Change a model provider (the fields given)",
        params: idParams,
        body: updateSchema,
        response: { 200: providerView, ...apiErrors(...BODY_CODES, "NOT_FOUND", "BASE_URL_NOT_ALLOWED", "SECRETS_REQUIRED") },
      },
    },
    async (request) => {
      await checkBaseUrl(request.body.base_url);
      const provider = await modelProviders.updateProvider(tenantOf(request), request.params.id, providerFieldsOf(request.body));
      if (!provider) throw notFound(request.params.id);
      return toProviderView(provider);
    },
  );

  app.post(
    "/api/model-providers/:id/test",
    {
      schema: {
        tags,
        summary: "Test a model provider's connection: read its model list as a run would reach it",
        description:
          "Reads the list as the provider's kind speaks: `GET {base_url}/models` (openai), `GET /api/tags` (ollama), `GET /v1/models` page after page (anthropic). " +
          "200 whether or not the API answered: `reachable: false` with one of the six `UPSTREAM_*` codes when the API failed " +
          "(a redirect to an address the egress policy refuses is `UPSTREAM_REDIRECT_BLOCKED`). A base URL the policy refuses outright is a 400 `BASE_URL_NOT_ALLOWED`.",
        params: idParams,
        response: { 200: connectionTestView, ...apiErrors(...INPUT_CODES, "NOT_FOUND", "BASE_URL_NOT_ALLOWED") },
      },
    },
    async (request) => {
      const provider = await modelProviders.getProviderCredentials(tenantOf(request), request.params.id);
      if (!provider) throw notFound(request.params.id);
      return toConnectionTestView(await testProviderConnection(provider, config.upstream, config.openAiApiKey));
    },
  );

  app.post(
    "/api/model-providers/:id/discover",
    {
      schema: {
        tags,
        summary: "Discover a model provider's models: read its model list and record it",
        description:
          "Reads the list as the connection test does. " +
          `Records at most ${MAX_DISCOVERED_MODELS} models (\`truncated\` says when the API listed more). New models start enabled; known ones keep ` +
          "the operator's flag; models no longer listed are kept as `available: false`. An upstream failure records nothing and answers its `UPSTREAM_*` code.",
        params: idParams,
        response: {
          200: discoveryView,
          ...apiErrors(...INPUT_CODES, "NOT_FOUND", "BASE_URL_NOT_ALLOWED", ...UPSTREAM_CODES),
        },
      },
    },
    async (request) => {
      const provider = await modelProviders.getProviderCredentials(tenantOf(request), request.params.id);
      if (!provider) throw notFound(request.params.id);
      const result = await discoverProviderModels(provider, config.upstream, modelProviders, config.openAiApiKey).catch((error: unknown) => {
        throw asHttpFailure(error);
      });
      if (!result) throw notFound(request.params.id);
      return toDiscoveryView(result);
    },
  );

  app.get(
    "/api/model-providers/:id/models",
    {
      schema: {
        tags,
        summary: "List a model provider's discovered models, by name",
        params: idParams,
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("models", providerModelView), ...apiErrors(...INPUT_CODES, "INVALID_CURSOR", "NOT_FOUND") },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      if (!(await modelProviders.getProvider(tenantId, request.params.id))) throw notFound(request.params.id);
      return pageBody("models", await modelProviders.listModels(tenantId, request.params.id, request.query), toProviderModelView);
    },
  );

  app.patch(
    "/api/model-providers/:id/models/:model",
    {
      schema: {
        tags,
        summary: "Switch a discovered model on or off",
        description: "The flag is kept across rediscoveries. Only a model a discovery recorded has one: any other is 404.",
        params: modelParams,
        body: modelFlagSchema,
        response: { 200: providerModelView, ...apiErrors(...BODY_CODES, "NOT_FOUND") },
      },
    },
    async (request) => {
      const { id, model } = request.params;
      const changed = await modelProviders.setModelEnabled(tenantOf(request), id, model, request.body.enabled);
      if (!changed) throw new HttpError("NOT_FOUND", `Model provider ${id} has no discovered model ${model}`);
      return toProviderModelView(changed);
    },
  );

  app.delete(
    "/api/model-providers/:id",
    { schema: { tags, summary: "Remove a model provider", params: idParams, response: { 204: noContent, ...apiErrors(...INPUT_CODES, "NOT_FOUND") } } },
    async (request, reply) => {
      if (!(await modelProviders.deleteProvider(tenantOf(request), request.params.id))) throw notFound(request.params.id);
      return reply.status(204).send();
    },
  );
};
