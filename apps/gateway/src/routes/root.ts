import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { DOCS_PATH, OPENAPI_PATH } from "../openapi/apiReference";
import { PLAYGROUND_PATH } from "../playground/playgroundPage";
import { GATEWAY_VERSION } from "../version";

/** What the gateway serves a person who opened its root address, so that it is not a bare 404. */
export const rootRoute: FastifyPluginAsyncZod<{ servesApi: boolean; playground: boolean; authRequired: boolean }> = async (app, { servesApi, playground, authRequired }) => {
  app.get(
    "/",
    {
      schema: {
        tags: ["health"],
        summary: "Where to go from here: the API reference, the playground, health",
        response: {
          200: z.object({
            name: z.literal("axiom-lattice gateway"),
            version: z.string(),
            docs: z.string().optional().describe("The API reference (absent on a worker replica)"),
            openapi: z.string().optional(),
            playground: z.string().optional().describe("The chat page (when served)"),
            health: z.string(),
            authentication: z
              .enum(["bearer", "none"])
              .describe("`bearer`: requests carry a token, which decides their tenant; `none`: a request names its tenant in `x-tenant-id` (the playground shows a tenant field then)"),
          }),
        },
      },
    },
    async () => ({
      name: "axiom-lattice gateway" as const,
      version: GATEWAY_VERSION,
      ...(servesApi ? { docs: DOCS_PATH, openapi: OPENAPI_PATH } : {}),
      ...(playground ? { playground: PLAYGROUND_PATH } : {}),
      health: "/health",
      authentication: authRequired ? ("bearer" as const) : ("none" as const),
    }),
  );
};
