import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import { HttpError } from "../http/errors";
import { BODY_CODES, apiErrors } from "../openapi/errorResponses";
import type { PluginCatalog } from "../plugins/pluginCatalog";

const nameParams = z.object({ name: z.string().min(1).max(300).describe("The tool's name, as assistants list it") });
const settingSchema = z.strictObject({ enabled: z.boolean().describe("false: the tenant's assistants may not use the tool (their runs go without it)") });

const entryView = z.object({
  name: z.string(),
  source: z.enum(["builtin", "mcp"]),
  serverKey: z.string().optional().describe("The MCP server the tool comes from"),
  description: z.string(),
  enabled: z.boolean(),
}).meta({ id: "Plugin" });

const tags = ["plugins"];

/**
 * A tenant's plugin catalog: the tools its assistants could enable, each of which an admin may switch
 * off. Every change is announced (`plugin-catalog-changed`) so each replica drops its cached copy.
 */
export const pluginRoutes: FastifyPluginAsyncZod<{ plugins: PluginCatalog }> = async (app, { plugins }) => {
  app.get(
    "/api/plugins",
    { schema: { tags, summary: "The tenant's plugin catalog: built-in tools and its connected MCP servers' tools", response: { 200: z.object({ plugins: z.array(entryView) }), ...apiErrors() } } },
    async (request) => ({ plugins: await plugins.entries(tenantOf(request)) }),
  );

  app.patch(
    "/api/plugins/:name",
    {
      schema: {
        tags,
        summary: "Switch a tool on or off for the tenant's assistants",
        params: nameParams,
        body: settingSchema,
        response: { 200: entryView, ...apiErrors(...BODY_CODES, "NOT_FOUND") },
      },
    },
    async (request) => {
      const { name } = request.params;
      const entry = await plugins.setEnabled(tenantOf(request), name, request.body.enabled);
      if (!entry) throw new HttpError("NOT_FOUND", `Plugin ${name} not found: no built-in tool nor a tool of the tenant's connected MCP servers has this name`);
      return entry;
    },
  );
};
