import { randomUUID } from "node:crypto";
import { type ApiKey, MAX_API_KEY_ASSISTANTS } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { fieldRules as rules } from "@axiom-lattice/core";
import { z } from "zod";
import { apiKeyPrefixOf, hashApiKeySecret, newApiKeySecret } from "../auth/apiKeySecrets";
import { principalOf } from "../auth/authentication";
import { SCOPES, grants, widestScope } from "../auth/principal";
import { HttpError } from "../http/errors";
import { idParams, idSchema, noContent } from "../http/ids";
import { pageBody, pageQuery, pageView } from "../http/pageWire";
import { BODY_CODES, INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { requireAssistant } from "../shared/lookups";
import type { GatewayStores } from "../stores/gatewayStores";

export interface ApiKeyRoutesOptions {
  stores: Pick<GatewayStores, "apiKeys" | "assistants">;
}

const scopesSchema = z
  .array(z.enum(SCOPES))
  .min(1)
  .max(SCOPES.length)
  .describe("What the key may do: read ⊂ write ⊂ admin, so the widest one given counts");

const createSchema = z.strictObject({
  name: rules.text.max(200).describe("What the key is for, to recognise it by"),
  scopes: scopesSchema,
  assistant_ids: z
    .array(idSchema)
    .min(1)
    .max(MAX_API_KEY_ASSISTANTS)
    .optional()
    .describe("The only assistants the key may see and run (others answer 404); absent: every assistant of the tenant"),
  expires_at: z.iso.datetime({ offset: true }).optional().describe("When the key stops working; absent: never"),
});

const apiKeyView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    name: z.string(),
    scopes: z.array(z.enum(SCOPES)).describe("Every scope the key grants"),
    assistant_ids: z.array(z.string()).nullable().describe("null: every assistant of the tenant"),
    prefix: z.string().describe("The key's first characters, to tell which one a program holds"),
    expires_at: z.date().nullable(),
    created_at: z.date(),
    last_used_at: z.date().nullable().describe("Recorded at most about once a minute"),
    revoked_at: z.date().nullable(),
  })
  .meta({ id: "ApiKey" });

const createdView = apiKeyView.extend({ key: z.string().describe("The key itself, lat_…: shown this once, stored only as a hash") }).meta({ id: "CreatedApiKey" });

const toApiKeyView = (key: ApiKey): z.infer<typeof apiKeyView> => ({
  id: key.id,
  tenant_id: key.tenantId,
  name: key.name,
  scopes: SCOPES.filter((scope) => grants(key.scope, scope)),
  assistant_ids: key.assistantIds ?? null,
  prefix: key.prefix,
  expires_at: key.expiresAt ?? null,
  created_at: key.createdAt,
  last_used_at: key.lastUsedAt ?? null,
  revoked_at: key.revokedAt ?? null,
});

const tags = ["API keys"];

/**
 * The tenant's API keys: long-lived credentials for programs (`x-api-key` or `Authorization: Bearer`).
 * A revoked key keeps its row, so its last use and its revocation stay visible; it authenticates
 * nothing any more, on any replica, from the next request.
 */
export const apiKeyRoutes: FastifyPluginAsyncZod<ApiKeyRoutesOptions> = async (app, options) => {
  const { apiKeys } = options.stores;
  const notFound = (id: string) => new HttpError("NOT_FOUND", `API key ${id} not found`);

  app.post(
    "/api/api-keys",
    {
      schema: {
        tags,
        summary: "Create an API key: the answer shows it once",
        description: "A credential restricted to some assistants cannot manage keys (it would hand out wider ones).",
        body: createSchema,
        response: { 201: createdView, ...apiErrors(...BODY_CODES, "NOT_FOUND") },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { name, scopes, assistant_ids, expires_at } = request.body;
      const expiresAt = expires_at === undefined ? undefined : new Date(expires_at);
      if (expiresAt !== undefined && expiresAt.getTime() <= Date.now()) throw new HttpError("INVALID_REQUEST", "expires_at must be in the future");
      for (const id of assistant_ids ?? []) await requireAssistant(options, principal.tenantId, id);
      const secret = newApiKeySecret();
      const key = await apiKeys.createApiKey(principal.tenantId, {
        id: randomUUID(),
        name,
        // The schema admits only known scopes and at least one.
        scope: widestScope(scopes)!,
        assistantIds: assistant_ids,
        expiresAt,
        secretHash: hashApiKeySecret(secret),
        prefix: apiKeyPrefixOf(secret),
      });
      return reply.status(201).send({ ...toApiKeyView(key), key: secret });
    },
  );

  app.get(
    "/api/api-keys",
    {
      schema: {
        tags,
        summary: "List the tenant's API keys, revoked ones too, oldest first (never the keys themselves)",
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("api_keys", apiKeyView), ...apiErrors(...INPUT_CODES, "INVALID_CURSOR") },
      },
    },
    async (request) => pageBody("api_keys", await apiKeys.listApiKeys(principalOf(request).tenantId, request.query), toApiKeyView),
  );

  app.get(
    "/api/api-keys/:id",
    { schema: { tags, summary: "Read an API key (never the key itself)", params: idParams, response: { 200: apiKeyView, ...apiErrors(...INPUT_CODES, "NOT_FOUND") } } },
    async (request) => {
      const key = await apiKeys.getApiKey(principalOf(request).tenantId, request.params.id);
      if (!key) throw notFound(request.params.id);
      return toApiKeyView(key);
    },
  );

  app.delete(
    "/api/api-keys/:id",
    {
      schema: {
        tags,
        summary: "Revoke an API key",
        description: "Refused on every replica from the next request. The key stays listed, with `revoked_at`; revoking it again changes nothing.",
        params: idParams,
        response: { 204: noContent, ...apiErrors(...INPUT_CODES, "NOT_FOUND") },
      },
    },
    async (request, reply) => {
      if (!(await apiKeys.revokeApiKey(principalOf(request).tenantId, request.params.id, new Date()))) throw notFound(request.params.id);
      return reply.status(204).send();
    },
  );
};
