import { comparePageKeys, fieldRules as rules, findEgressRefusal, pageOfSorted } from "@axiom-lattice/core";
import {
  MCP_ENV_NAME_PATTERN,
  MCP_HEADER_NAME_PATTERN,
  MCP_HEADER_VALUE_PATTERN,
  MCP_SECRET_ENTRY_LIMIT,
  MCP_SECRET_VALUE_LIMIT,
  isReservedMcpHeaderName,
} from "@axiom-lattice/core";
import type { McpServerConfig, McpServerConfigEntry, PageRequest } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import { HttpError } from "../http/errors";
import { BODY_CODES, INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { noContent } from "../http/ids";
import type { McpServerManager, OfferedTool } from "../mcp/mcpServerManager";
import { pageBody, pageQuery, pageView } from "../http/pageWire";
import type { GatewayStores } from "../stores/gatewayStores";

const keySchema = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,63}$/, "must be 1-64 letters, digits, '-' or '_' (no '__'), starting with a letter or digit");
const keyParams = z.object({ key: keySchema });

/** Secret entries: names in the clear, values sealed at rest and never returned. */
const secretEntries = (name: RegExp, nameRule: string, value: z.ZodString) =>
  z
    .record(z.string().regex(name, nameRule), value.min(1).max(MCP_SECRET_VALUE_LIMIT))
    .refine((entries) => Object.keys(entries).length <= MCP_SECRET_ENTRY_LIMIT, `at most ${MCP_SECRET_ENTRY_LIMIT} entries`);

const headersSchema = secretEntries(
  MCP_HEADER_NAME_PATTERN,
  "must be an HTTP header name (a token of letters, digits and !#$%&'*+.^_`|~-)",
  z.string().regex(MCP_HEADER_VALUE_PATTERN, "must hold no control character"),
)
  .refine((entries) => !Object.keys(entries).some(isReservedMcpHeaderName), "may not set a header the MCP client sets itself (Accept, Content-Type, Mcp-Session-Id, Mcp-Protocol-Version, …)")
  .describe("Sent with every request to the server (e.g. Authorization); stored sealed, never returned: reads show `header_names`. Omitted in a PATCH: kept for the same url; a new url needs them again (SECRETS_REQUIRED)");

const envSchema = secretEntries(MCP_ENV_NAME_PATTERN, "must be a variable name: letters, digits and '_', not starting with a digit", z.string()).describe(
  "Added to the server process's environment (besides a safe default: PATH, HOME, …); stored sealed, never returned: reads show `env_names`. Omitted in a PATCH: kept for the same command and args; new ones need it again (SECRETS_REQUIRED)",
);

const timeoutSchema = z.number().int().min(1).max(600_000).optional().describe("Bound of every call to the server, in ms (default 30000)");
const retryAttemptsSchema = z.number().int().min(0).max(10).optional().describe("Further connection attempts after a failed one");

const configSchema = z.discriminatedUnion("transport", [
  z.strictObject({
    transport: z.literal("stdio"),
    command: rules.text.describe("Executable the gateway starts; it speaks MCP on stdin/stdout"),
    args: z.array(rules.text).optional(),
    env: envSchema.optional(),
    timeout: timeoutSchema,
    retry_attempts: retryAttemptsSchema,
  }),
  z.strictObject({
    transport: z.literal("http"),
    url: z.url({ protocol: /^https?$/ }).describe("Streamable HTTP endpoint of the server"),
    headers: headersSchema.optional(),
    timeout: timeoutSchema,
    retry_attempts: retryAttemptsSchema,
  }),
]);
type ConfigBody = z.infer<typeof configSchema>;

const selectedToolsSchema = z.array(z.string().min(1).max(200)).max(500).describe("The server's tools assistants may use, by the server's names (`add`; assistants list it as `<key>__add`); empty: all");

const createSchema = z.strictObject({ key: keySchema, config: configSchema, selected_tools: selectedToolsSchema.optional() });
const updateSchema = z.strictObject({ config: configSchema.optional(), selected_tools: selectedToolsSchema.optional() });

const entryView = z
  .object({
    tenant_id: z.string(),
    key: z.string(),
    config: z.object({
      transport: z.enum(["stdio", "http"]),
      command: z.string().optional(),
      args: z.array(z.string()).optional(),
      url: z.string().optional(),
      timeout: z.number().optional(),
      retry_attempts: z.number().optional(),
      header_names: z.array(z.string()).optional().describe("Names of the stored headers (values are never returned)"),
      env_names: z.array(z.string()).optional().describe("Names of the stored environment variables (values are never returned)"),
    }),
    selected_tools: z.array(z.string()),
    status: z.enum(["connected", "disconnected", "error"]).describe("Set by connect and disconnect; `error` when the server failed"),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: "McpServer" });

const toolView = z
  .object({
    name: z.string().describe("The server's name for the tool (what `selected_tools` lists)"),
    full_name: z.string().describe("The name assistants list it by: `<key>__<name>`"),
    selected: z.boolean().describe("Whether `selected_tools` (empty: all) make it the tenant's"),
    description: z.string().optional(),
    input_schema: z.record(z.string(), z.unknown()).describe("The tool's JSON Schema, as the server gave it"),
  })
  .meta({ id: "McpTool" });

const tags = ["mcp"];
// A server the operator's policy does not allow (an url the egress policy refuses, a command outside AXIOM_MCP_STDIO_ALLOW).
const TARGET_CODES = ["BASE_URL_NOT_ALLOWED", "MCP_COMMAND_NOT_ALLOWED"] as const;

/** What the API shows of a configuration: header and env names, never their values. */
function viewOf(entry: McpServerConfigEntry): z.infer<typeof entryView> {
  const { headers, env, retryAttempts, ...config } = entry.config;
  const names = (entries: Record<string, string> | undefined) => (entries && Object.keys(entries).length > 0 ? Object.keys(entries) : undefined);
  const [header_names, env_names] = [names(headers), names(env)];
  return {
    tenant_id: entry.tenantId,
    key: entry.key,
    config: { ...config, ...(retryAttempts === undefined ? {} : { retry_attempts: retryAttempts }), ...(header_names && { header_names }), ...(env_names && { env_names }) },
    selected_tools: entry.selectedTools,
    status: entry.status,
    created_at: entry.createdAt,
    updated_at: entry.updatedAt,
  };
}

/** The store's configuration of a body's (`env` and `headers` kept as given). */
function configOf({ retry_attempts, ...config }: ConfigBody): McpServerConfig {
  return { ...config, ...(retry_attempts === undefined ? {} : { retryAttempts: retry_attempts }) };
}

/** The store's fields of a create or update body. */
function entryFieldsOf<B extends { config?: ConfigBody; selected_tools?: string[] }>({ config, selected_tools, ...rest }: B) {
  return { ...rest, ...(config === undefined ? {} : { config: configOf(config) }), ...(selected_tools === undefined ? {} : { selectedTools: selected_tools }) };
}

const toolViewOf = ({ name, fullName, selected, description, inputSchema }: OfferedTool): z.infer<typeof toolView> => ({
  name,
  full_name: fullName,
  selected,
  description,
  input_schema: inputSchema,
});

/** A page of a server's tools, by name. */
function toolsPage(tools: readonly OfferedTool[], page: PageRequest) {
  const keyOf = (tool: OfferedTool) => [tool.name];
  const sorted = [...tools].sort((a, b) => comparePageKeys(keyOf(a), keyOf(b)));
  return pageBody("tools", pageOfSorted(sorted, page, ["string"], keyOf), toolViewOf);
}

/**
 * A tenant's MCP servers: configurations, connect and disconnect, and the tools a server offers.
 * Every change is announced (`mcp-config-changed`) so each replica reconciles from the store.
 */
export const mcpConfigRoutes: FastifyPluginAsyncZod<{ stores: Pick<GatewayStores, "mcp">; mcp: McpServerManager }> = async (app, { stores, mcp }) => {
  const notFound = (key: string) => new HttpError("NOT_FOUND", `MCP server configuration ${key} not found`);
  // A failure to connect, as the client hears it: the policy's own refusal (wrapped by fetch and the SDK when refused at connect), else the server unavailable.
  const connectFailure = (key: string, error: unknown) =>
    error instanceof HttpError
      ? error
      : (findEgressRefusal(error) ??
        new HttpError("MCP_SERVER_UNAVAILABLE", `MCP server ${key} could not be reached: ${error instanceof Error ? error.message : String(error)}; its status is now error`));

  app.post(
    "/api/mcp-configs",
    {
      schema: {
        tags,
        summary: "Add an MCP server (disconnected until connected)",
        body: createSchema,
        response: { 201: entryView, ...apiErrors(...BODY_CODES, ...TARGET_CODES, "ALREADY_EXISTS") },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const create = { ...entryFieldsOf(request.body), config: configOf(request.body.config) };
      await mcp.checkTarget(create.config);
      const created = await stores.mcp.create(tenantId, create);
      await mcp.applied(tenantId, created.key);
      return reply.status(201).send(viewOf(created));
    },
  );

  app.get(
    "/api/mcp-configs",
    {
      schema: {
        tags,
        summary: "List the tenant's MCP servers, oldest first",
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("configs", entryView), ...apiErrors(...INPUT_CODES, "INVALID_CURSOR") },
      },
    },
    async (request) => pageBody("configs", await stores.mcp.list(tenantOf(request), request.query), viewOf),
  );

  app.get(
    "/api/mcp-configs/:key",
    { schema: { tags, summary: "Read an MCP server configuration", params: keyParams, response: { 200: entryView, ...apiErrors(...INPUT_CODES, "NOT_FOUND") } } },
    async (request) => {
      const entry = await stores.mcp.get(tenantOf(request), request.params.key);
      if (!entry) throw notFound(request.params.key);
      return viewOf(entry);
    },
  );

  app.patch(
    "/api/mcp-configs/:key",
    {
      schema: {
        tags,
        summary: "Change an MCP server's configuration or selected tools (a connected server reconnects)",
        params: keyParams,
        body: updateSchema,
        response: { 200: entryView, ...apiErrors(...BODY_CODES, ...TARGET_CODES, "NOT_FOUND", "SECRETS_REQUIRED") },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const { key } = request.params;
      const update = entryFieldsOf(request.body);
      if (update.config) await mcp.checkTarget(update.config);
      if (!(await stores.mcp.update(tenantId, key, update))) throw notFound(key);
      await mcp.applied(tenantId, key);
      const entry = await stores.mcp.get(tenantId, key);
      if (!entry) throw notFound(key);
      return viewOf(entry);
    },
  );

  app.delete(
    "/api/mcp-configs/:key",
    { schema: { tags, summary: "Remove an MCP server", params: keyParams, response: { 204: noContent, ...apiErrors(...INPUT_CODES, "NOT_FOUND") } } },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      if (!(await stores.mcp.delete(tenantId, request.params.key))) throw notFound(request.params.key);
      await mcp.applied(tenantId, request.params.key);
      return reply.status(204).send();
    },
  );

  app.post(
    "/api/mcp-configs/:key/connect",
    {
      schema: {
        tags,
        summary: "Connect an MCP server: its selected tools become the tenant's on every replica",
        params: keyParams,
        response: { 200: entryView, ...apiErrors(...INPUT_CODES, ...TARGET_CODES, "NOT_FOUND", "MCP_SERVER_UNAVAILABLE") },
      },
    },
    async (request) => {
      const { key } = request.params;
      let entry: McpServerConfigEntry | null;
      try {
        entry = await mcp.connect(tenantOf(request), key);
      } catch (error) {
        throw connectFailure(key, error);
      }
      if (!entry) throw notFound(key);
      return viewOf(entry);
    },
  );

  app.post(
    "/api/mcp-configs/:key/disconnect",
    { schema: { tags, summary: "Disconnect an MCP server on every replica", params: keyParams, response: { 200: entryView, ...apiErrors(...INPUT_CODES, "NOT_FOUND") } } },
    async (request) => {
      const entry = await mcp.disconnect(tenantOf(request), request.params.key);
      if (!entry) throw notFound(request.params.key);
      return viewOf(entry);
    },
  );

  app.get(
    "/api/mcp-configs/:key/tools",
    {
      schema: {
        tags,
        summary: "The tools an MCP server offers, by name (connecting it when it is not)",
        params: keyParams,
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("tools", toolView), ...apiErrors(...INPUT_CODES, ...TARGET_CODES, "NOT_FOUND", "MCP_SERVER_UNAVAILABLE", "INVALID_CURSOR") },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const { key } = request.params;
      const offered = mcp.offeredTools(tenantId, key);
      if (offered) return toolsPage(offered, request.query);
      try {
        if (!(await mcp.connect(tenantId, key))) throw notFound(key);
      } catch (error) {
        throw connectFailure(key, error);
      }
      return toolsPage(mcp.offeredTools(tenantId, key) ?? [], request.query);
    },
  );
};
