import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import type { OpenAPIV3_1 } from "openapi-types";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { TENANT_HEADER } from "../http/tenant";
import { GATEWAY_VERSION } from "../version";
import { isProtectedRoute } from "../auth/authentication";
import { routeScope } from "../auth/routeScopes";

export const OPENAPI_PATH = "/openapi.json";
export const DOCS_PATH = "/docs";

const API_DESCRIPTION = `The axiom-lattice gateway: assistants, threads, runs (streamed as server-sent events), schedules.

Every \`/api\` error answers \`{ "success": false, "code", "error" }\`; each response lists the codes its status may carry.
The LangGraph-compatible API (\`/assistants\`, \`/threads\`, \`/runs\`, tag \`langgraph\`) answers as LangGraph Platform does, errors as \`{ "detail", "code" }\`.
The MCP server (\`POST /mcp\`, tag \`mcp server\`) answers JSON-RPC over MCP's Streamable HTTP, each assistant a tool.
With \`AUTH_REQUIRED=true\` every such route needs \`Authorization: Bearer <JWT>\` (or the JWT in \`x-api-key\`, as LangGraph SDKs send their \`apiKey\`) with the scope it names;
without it, requests belong to the tenant in \`x-tenant-id\` (default \`default\`).`;

const pascal = (word: string) => word.split(/[^A-Za-z0-9]+/).map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join("");

/**
 * A stable operationId from the method and path, for generated clients' method names:
 * `GET /api/threads/:id/runs` is `getApiThreadsByIdRuns`, `POST /threads/search` is `postThreadsSearch`.
 */
export function operationIdOf(method: string, url: string): string {
  const words = url.split("/").filter(Boolean).map((segment) => (segment.startsWith(":") ? `By${pascal(segment.slice(1))}` : pascal(segment)));
  return `${method.toLowerCase()}${words.join("")}`;
}

/** A protected route's headers, with `x-tenant-id` documented among them. */
function withTenantHeader(headers: unknown): Record<string, unknown> {
  const declared = (headers ?? { type: "object", properties: {} }) as { properties?: Record<string, unknown> };
  const tenant = {
    type: "string",
    description: "The tenant, without authentication (default `default`); with it, the token's tenant, and any other value answers 403 TENANT_MISMATCH",
  };
  return { ...declared, type: "object", properties: { [TENANT_HEADER]: tenant, ...declared.properties } };
}

const SCHEMA_REF = /"#\/components\/schemas\/([^"]+)"/g;

/**
 * The document without the component schemas nothing references: the type provider adds an input
 * twin (`ThreadInput`) of every named answer schema, and no route takes one. The rest are listed by
 * name: zod's registry holds them in the order their modules loaded, which no reader should depend on.
 */
function withoutUnusedSchemas(document: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  const schemas = document.components?.schemas ?? {};
  const used = new Set<string>();
  let found = [...JSON.stringify({ ...document, components: { ...document.components, schemas: {} } }).matchAll(SCHEMA_REF)].map((match) => match[1]);
  while (found.length > 0) {
    const fresh = found.filter((name) => !used.has(name));
    for (const name of fresh) used.add(name);
    found = fresh.flatMap((name) => [...JSON.stringify(schemas[name] ?? {}).matchAll(SCHEMA_REF)].map((match) => match[1]));
  }
  const kept = Object.fromEntries(
    Object.entries(schemas)
      .filter(([name]) => used.has(name))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  return { ...document, components: { ...document.components, schemas: kept } };
}

/**
 * The API reference, generated from the routes' zod schemas: OpenAPI 3.1 at `/openapi.json`,
 * rendered at `/docs`. Register it before the routes, whose registration it records. Both are public:
 * they describe the API, not anyone's data.
 */
export async function registerApiReference(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "axiom-lattice gateway", version: GATEWAY_VERSION, description: API_DESCRIPTION },
      components: { securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } } },
    },
    transform: (document) => {
      const transformed = jsonSchemaTransform(document);
      const method = [document.route.method].flat()[0];
      const operationId = operationIdOf(method, document.url);
      if (!isProtectedRoute(document.url)) return { ...transformed, schema: { ...transformed.schema, operationId } };
      // Each protected route says the scope it needs (apps/gateway/src/auth/routeScopes.ts).
      const scope = routeScope(method, document.url);
      const description = [transformed.schema.description, scope && `Needs the \`${scope}\` scope when authentication is on.`].filter(Boolean).join("\n\n");
      const headers = withTenantHeader(transformed.schema.headers);
      return { ...transformed, schema: { ...transformed.schema, operationId, description, headers, security: [{ bearerAuth: [] }] } };
    },
    // The schemas routes name (`.meta({ id })`) become components, referenced where used.
    transformObject: (document) => withoutUnusedSchemas(jsonSchemaTransformObject(document) as OpenAPIV3_1.Document),
  });
  await app.register(swaggerUi, { routePrefix: DOCS_PATH });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
}
