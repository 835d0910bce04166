import { ITEM_ADDRESS_MAX_BYTES, ITEM_NAMESPACE_MAX_LABELS, boundedJson, fieldRules as rules, itemLabels, itemNamespace } from "@axiom-lattice/core";
import type { StoredItem } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import type { LanggraphServices } from "./langgraphServices";
import { noContent } from "../http/ids";
import { bodyErrors, inputErrors } from "./errors";

// Labels, keys and time-to-lives are held to the rules the store keeps (core's `itemLabels`,
// `fieldRules`), so a bad one is refused here under its wire name; what only the store can judge (the
// address's size, a filter's operators) it refuses with INVALID_STORE_ARGUMENT, also 422.
const key = rules.text.max(ITEM_ADDRESS_MAX_BYTES);
const jsonObject = boundedJson(z.record(z.string().max(256), z.unknown()));

const itemView = z
  .object({
    namespace: z.array(z.string()),
    key: z.string(),
    value: z.record(z.string(), z.unknown()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .describe("An item of the tenant's store")
  .meta({ id: "LangGraphItem" });

const toItemView = (item: StoredItem): z.output<typeof itemView> => ({
  namespace: item.namespace,
  key: item.key,
  value: item.value,
  created_at: item.createdAt.toISOString(),
  updated_at: item.updatedAt.toISOString(),
});

const putSchema = z.strictObject({
  namespace: itemNamespace.describe("The item's namespace: 1 to 20 labels, none empty or with a period"),
  key,
  value: jsonObject,
  index: z.union([z.literal(false), z.array(z.string()), z.null()]).optional().describe("No embedding index is configured: accepted without effect"),
  ttl: rules.ttlMinutes.nullable().optional().describe("Minutes the item lives after this put and after each read that refreshes it; absent or null: for ever"),
});

const REFRESH_FLAGS = ["true", "false", "1", "0"] as const;
const refreshFlag = (flag: (typeof REFRESH_FLAGS)[number] | undefined) => flag === undefined || flag === "true" || flag === "1";

const getQuery = z.object({
  namespace: z.string().max(4_096).default("").describe("The namespace's labels joined by periods, as the SDK sends it"),
  key,
  refresh_ttl: z.enum(REFRESH_FLAGS).optional().describe("Restart the item's time-to-live (default true)"),
});

const deleteSchema = z.strictObject({ namespace: itemLabels.default([]), key });

const searchSchema = z.strictObject({
  namespace_prefix: itemLabels.default([]).describe("Items whose namespace begins with these labels"),
  filter: jsonObject.nullable().optional().describe("Conditions on top-level fields of the value: a value to equal, or $eq, $ne, $gt, $gte, $lt, $lte"),
  limit: z.number().int().min(1).max(1_000).default(10),
  offset: z.number().int().min(0).default(0),
  query: z.string().max(1_024).nullable().optional().describe("No embedding index: the items whose strings contain every word of it (ASCII case aside), not ranked"),
  refresh_ttl: z.boolean().nullable().optional().describe("Restart the time-to-live of the items answered (default true)"),
});

const namespacesSchema = z.strictObject({
  prefix: itemLabels.nullable().optional().describe("Namespaces beginning with these labels; `*` matches any label"),
  suffix: itemLabels.nullable().optional().describe("Namespaces ending with these labels; `*` matches any label"),
  max_depth: rules.integer(1, ITEM_NAMESPACE_MAX_LABELS).nullable().optional().describe("Namespaces cut to this many labels, each listed once"),
  limit: z.number().int().min(1).max(1_000).default(100),
  offset: z.number().int().min(0).default(0),
});

const tags = ["langgraph"];

/**
 * LangGraph's store: each tenant's long-term memory, items under namespaces, optionally expiring.
 * Runs read the same items through `getStore()` (the agent's `TenantStore`).
 */
export const langgraphStoreRoutes: FastifyPluginAsyncZod<Pick<LanggraphServices, "stores">> = async (app, { stores }) => {
  const { items } = stores;

  app.put(
    "/store/items",
    { schema: { tags, summary: "Store or replace an item (LangGraph API)", body: putSchema, response: { 204: noContent, ...bodyErrors() } } },
    async (request, reply) => {
      const { namespace, key, value, ttl } = request.body;
      await items.put(tenantOf(request), namespace, key, value, { ttlMinutes: ttl });
      return reply.status(204).send();
    },
  );

  app.get(
    "/store/items",
    {
      schema: {
        tags,
        summary: "Read an item (LangGraph API); null when there is none",
        querystring: getQuery,
        response: { 200: itemView.nullable(), ...inputErrors("INVALID_STORE_ARGUMENT") },
      },
    },
    async (request) => {
      const { namespace, key, refresh_ttl } = request.query;
      const item = await items.get(tenantOf(request), namespace === "" ? [] : namespace.split("."), key, { refreshTtl: refreshFlag(refresh_ttl) });
      return item && toItemView(item);
    },
  );

  app.delete(
    "/store/items",
    { schema: { tags, summary: "Delete an item (LangGraph API); none is no error", body: deleteSchema, response: { 204: noContent, ...bodyErrors() } } },
    async (request, reply) => {
      await items.delete(tenantOf(request), request.body.namespace, request.body.key);
      return reply.status(204).send();
    },
  );

  app.post(
    "/store/items/search",
    {
      schema: {
        tags,
        summary: "Search items by namespace prefix, value fields and words, most recently updated first (LangGraph API)",
        body: searchSchema,
        response: { 200: z.object({ items: z.array(itemView) }), ...bodyErrors() },
      },
    },
    async (request) => {
      const { namespace_prefix, filter, limit, offset, query, refresh_ttl } = request.body;
      const found = await items.search(tenantOf(request), {
        namespacePrefix: namespace_prefix,
        filter: filter ?? undefined,
        query: query ?? undefined,
        limit,
        offset,
        refreshTtl: refresh_ttl ?? undefined,
      });
      return { items: found.map(toItemView) };
    },
  );

  app.post(
    "/store/namespaces",
    {
      schema: {
        tags,
        summary: "List the namespaces of the tenant's items (LangGraph API)",
        body: namespacesSchema,
        response: { 200: z.object({ namespaces: z.array(z.array(z.string())) }), ...bodyErrors() },
      },
    },
    async (request) => {
      const { prefix, suffix, max_depth, limit, offset } = request.body;
      const namespaces = await items.listNamespaces(tenantOf(request), {
        prefix: prefix ?? undefined,
        suffix: suffix ?? undefined,
        maxDepth: max_depth ?? undefined,
        limit,
        offset,
      });
      return { namespaces };
    },
  );
};
