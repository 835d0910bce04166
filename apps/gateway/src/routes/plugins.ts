import { pageOfSorted } from "@axiom-lattice/core";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import { HttpError } from "../http/errors";
import { pageBody, pageQuery, pageView } from "../http/pageWire";
import { BODY_CODES, INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { PLUGIN_ORDER, type PluginCatalog, type PluginEntry, pluginOrderKey } from "../plugins/pluginCatalog";

const nameParams = z.object({ name: z.string().min(1).max(300).describe("The tool's name, as assistants list it") });
const settingSchema = z.strictObject({ enabled: z.boolean().describe("false: the tenant's assistants may not use the tool (their runs go without it)") });

const entryView = z
  .object({
    name: z.string(),
    source: z.enum(["builtin", "mcp"]),
    server_key: z.string().optional().describe("The MCP server the tool comes from"),
    description: z.string(),
    enabled: z.boolean(),
  })
  .meta({ id: "Plugin" });

const toPluginView = ({ name, source, serverKey, description, enabled }: PluginEntry): z.infer<typeof entryView> => ({
  name,
  source,
  server_key: serverKey,
  description,
  enabled,
});

const tags = ["plugins"];

/**
 * A tenant's plugin catalog: the tools its assistants could enable, each of which an admin may switch
 * off. Every change is announced (`plugin-catalog-changed`) so each replica drops its cached copy.
 */
export const pluginRoutes: FastifyPluginAsyncZod<{ plugins: PluginCatalog }> = async (app, { plugins }) => {
  app.get(
    "/api/plugins",
    {
      schema: {
        tags,
        summary: "The tenant's plugin catalog: built-in tools, then its connected MCP servers' tools, each by name",
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("plugins", entryView), ...apiErrors(...INPUT_CODES, "INVALID_CURSOR") },
      },
    },
    async (request) => pageBody("plugins", pageOfSorted(await plugins.entries(tenantOf(request)), request.query, PLUGIN_ORDER, pluginOrderKey), toPluginView),
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
      return toPluginView(entry);
    },
  );
};
