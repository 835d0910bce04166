import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import { GATEWAY_VERSION } from "../version";
import { isProtectedRoute } from "../auth/authentication";
import { routeScope } from "../auth/routeScopes";

export const OPENAPI_PATH = "/openapi.json";
export const DOCS_PATH = "/docs";

const API_DESCRIPTION = `The axiom-lattice gateway: assistants, threads, runs (streamed as server-sent events), schedules.

Every \`/api\` error answers \`{ "success": false, "code", "error" }\`; each response lists the codes its status may carry.
The LangGraph-compatible API (\`/assistants\`, \`/threads\`, \`/runs\`, tag \`langgraph\`) answers as LangGraph Platform does, errors as \`{ "detail", "code" }\`.
With \`AUTH_REQUIRED=true\` every such route needs \`Authorization: Bearer <JWT>\` (or the JWT in \`x-api-key\`, as LangGraph SDKs send their \`apiKey\`) with the scope it names;
without it, requests belong to the tenant in \`x-tenant-id\` (default \`default\`).`;

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
      if (!isProtectedRoute(document.url)) return transformed;
      // Each protected route says the scope it needs (apps/gateway/src/auth/routeScopes.ts).
      const scopes = [document.route.method].flat().map((method) => routeScope(method, document.url));
      const scope = scopes.find((each) => each !== undefined);
      const description = [transformed.schema.description, scope && `Needs the \`${scope}\` scope when authentication is on.`].filter(Boolean).join("\n\n");
      return { ...transformed, schema: { ...transformed.schema, description, security: [{ bearerAuth: [] }] } };
    },
  });
  await app.register(swaggerUi, { routePrefix: DOCS_PATH });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
}
