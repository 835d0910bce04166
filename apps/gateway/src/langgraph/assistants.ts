import { boundedJson, fieldRules as rules, jsonContains, readAllPages } from "@axiom-lattice/core";
import type { Assistant } from "@axiom-lattice/protocols";
import { REACT_GRAPH_ID } from "@axiom-lattice/agent";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { principalOf, tenantOf } from "../auth/authentication";
import type { Principal } from "../auth/principal";
import type { LanggraphServices } from "./langgraphServices";
import { HttpError } from "../http/errors";
import { REFERENCE_CODES, assistantReferenceCheck } from "../shared/assistantReferences";
import { requireCreatable, requireUsable, usableOnly } from "../shared/lookups";
import { idSchema, noContent } from "../http/ids";
import { deleteAssistantThreads } from "./assistantThreads";
import { type AssistantSettings, type AssistantView, assistantVersionView, assistantView, settingsOf, toAssistantVersionView, toAssistantView } from "./assistantView";
import { bodyErrors, inputErrors } from "./errors";
import { configurableOf, parseReactContext, reactGraphDrawing, reactGraphSchemas, reactSettingsIn } from "./graphs";
import { assistantIdOf } from "./graphAssistants";
import { paginate, paginationQuery, selected, sortedBy } from "./searchResults";

const jsonObject = boundedJson(z.record(z.string().max(256), z.unknown()));
const graphId = z.string().min(1).max(128).describe("The graph: `react` (the built-in ReAct agent) or one of the operator's `langgraph.json`");
const context = jsonObject.describe(
  "A deployed graph's runs get it as given. The ReAct graph reads its settings (`model`, `tools`, `system_prompt`) here; other keys are the assistant's own",
);
const config = jsonObject.describe("A deployed graph's runs get its `configurable`; the ReAct graph reads its settings from `context`");

const createSchema = z.strictObject({
  assistant_id: idSchema.optional().describe("Chosen by the client, unique within the tenant; generated when absent"),
  graph_id: graphId,
  config: config.optional(),
  context: context.optional(),
  metadata: jsonObject.optional(),
  if_exists: z.enum(["raise", "do_nothing"]).default("raise").describe("raise: 409 when the id is taken; do_nothing: answer the existing assistant"),
  name: rules.string.trim().min(1).max(200).optional(),
  description: rules.string.max(10_000).nullable().optional(),
});

const updateSchema = z.strictObject({
  graph_id: graphId.optional(),
  config: config.optional().describe("Replaces the stored config"),
  context: context.optional().describe("Replaces the stored context, settings included: what it leaves out takes the graph's default"),
  metadata: jsonObject.optional().describe("Merged into the stored metadata (top-level keys)"),
  name: rules.string.trim().min(1).max(200).optional(),
  description: rules.string.max(10_000).nullable().optional(),
});

const SORT_KEYS = ["assistant_id", "graph_id", "name", "created_at", "updated_at"] as const;
const SELECT_FIELDS = Object.keys(assistantView.shape) as [keyof AssistantView, ...(keyof AssistantView)[]];

const filterSchema = {
  graph_id: graphId.optional(),
  name: z.string().max(200).optional().describe("Part of the name, any case"),
  metadata: jsonObject.optional().describe("Only assistants whose metadata contains this object"),
};

const searchSchema = z.strictObject({
  ...filterSchema,
  ...paginationQuery,
  sort_by: z.enum(SORT_KEYS).default("created_at"),
  sort_order: z.enum(["asc", "desc"]).default("desc"),
  select: z.array(z.enum(SELECT_FIELDS)).min(1).optional().describe("Only these fields of each assistant"),
});

const versionsSchema = z.strictObject({
  metadata: jsonObject.optional().describe("Only versions whose metadata contains this object"),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
});

const latestSchema = z.strictObject({
  version: z.number().int().min(1).max(2_147_483_647).describe("The version to make current"),
});

const assistantParams = z.object({ assistant_id: idSchema });
const deleteQuery = z.object({
  delete_threads: z.enum(["true", "false"]).default("false").describe("true: delete the threads its runs used too (metadata.assistant_id); none while one has a run in progress (409 THREAD_BUSY)"),
});
const graphQuery = z.object({ xray: z.union([z.enum(["true", "false"]), z.coerce.number().int().min(0).max(10)]).optional().describe("Draw subgraphs inside their nodes (to this depth)") });
const subgraphParams = z.object({ assistant_id: idSchema, namespace: z.string().min(1).max(1024) });
const subgraphQuery = z.object({ recurse: z.enum(["true", "false"]).default("false").describe("Subgraphs of subgraphs too, named `parent|child`") });
const schemasView = z.object({
  graph_id: z.string(),
  input_schema: z.unknown(),
  output_schema: z.unknown(),
  state_schema: z.unknown(),
  config_schema: z.unknown(),
  context_schema: z.unknown(),
});

const tags = ["langgraph"];

/**
 * The LangGraph API's assistants: the gateway's own, read and written in LangGraph's terms. An
 * assistant runs the built-in ReAct graph (`graph_id` "react", its model, tools and system prompt in
 * its `context`) or one of the operator's graphs (its `config` and `context` given to its runs). A
 * graph's id stands for its default assistant.
 */
export const langgraphAssistantRoutes: FastifyPluginAsyncZod<Pick<LanggraphServices, "stores" | "config" | "mcp" | "plugins" | "agents" | "graphs">> = async (
  app,
  gateway,
) => {
  const { assistants } = gateway.stores;
  const { graphs } = gateway;
  const checkReferences = assistantReferenceCheck(gateway);
  const notFound = (id: string) => new HttpError("NOT_FOUND", `Assistant ${id} not found`);

  const requireGraph = (id: string | undefined) => {
    if (id !== undefined && !graphs.has(id)) throw new HttpError("NOT_FOUND", `Graph "${id}" not found: this gateway serves ${graphs.ids.join(", ")}`);
  };

  // Every route naming an assistant in its path answers, for one a restricted key may not use, as
  // for a missing one: checked once here, after the path is validated, before any handler reads.
  app.addHook("preHandler", async (request) => {
    const { assistant_id } = request.params as { assistant_id?: string };
    if (assistant_id !== undefined) requireUsable(principalOf(request), assistantIdOf(graphs, assistant_id), () => notFound(assistant_id));
  });

  const requireAssistant = async (tenantId: string, id: string): Promise<Assistant> => {
    const assistant = await assistants.getAssistant(tenantId, assistantIdOf(graphs, id));
    if (!assistant) throw notFound(id);
    return assistant;
  };

  /** What an assistant of `graph` keeps of a `context`: the ReAct graph's settings apart (checked), or the whole of it. */
  const settingsFor = async (tenantId: string, graph: string, given: Record<string, unknown> | undefined, config?: Record<string, unknown>): Promise<AssistantSettings> => {
    if (graph !== REACT_GRAPH_ID) return { model: { provider: "scripted" }, tools: [], systemPrompt: "", graphContext: given ?? {} };
    // The ReAct graph's settings in `config.configurable`, as older clients give them; `context` wins.
    const settings = settingsOf(parseReactContext({ ...reactSettingsIn(configurableOf(config)), ...given }));
    await checkReferences(tenantId, settings);
    return settings;
  };

  /** The tenant's assistants a search or count matches (assistants are few per tenant: every page read, filtered here). */
  const matching = async (who: Principal, filter: { graph_id?: string; name?: string; metadata?: Record<string, unknown> }) => {
    const name = filter.name?.toLowerCase();
    return usableOnly(who, await readAllPages((page) => assistants.listAssistants(who.tenantId, page)), (assistant) => assistant.id).filter(
      (assistant) =>
        (filter.graph_id === undefined || assistant.graph === filter.graph_id) &&
        (name === undefined || assistant.name.toLowerCase().includes(name)) &&
        (filter.metadata === undefined || jsonContains(assistant.metadata, filter.metadata)),
    );
  };

  app.post(
    "/assistants",
    {
      schema: {
        tags,
        summary: "Create an assistant (LangGraph API)",
        body: createSchema,
        response: { 200: assistantView, ...bodyErrors(...REFERENCE_CODES, "NOT_FOUND", "ALREADY_EXISTS") },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const { body } = request;
      requireGraph(body.graph_id);
      requireCreatable(principalOf(request), body.assistant_id);
      if (body.if_exists === "do_nothing" && body.assistant_id !== undefined) {
        const existing = await assistants.getAssistant(tenantId, body.assistant_id);
        if (existing) return toAssistantView(existing);
      }
      const { model, tools, systemPrompt, graphContext } = await settingsFor(tenantId, body.graph_id, body.context, body.config);
      const created = await assistants.createAssistant(tenantId, {
        id: body.assistant_id,
        name: body.name ?? "Untitled",
        graph: body.graph_id,
        model,
        tools,
        ...(systemPrompt ? { systemPrompt } : {}),
        ...(body.description ? { description: body.description } : {}),
        metadata: body.metadata,
        graphConfig: body.config,
        graphContext,
      });
      return toAssistantView(created);
    },
  );

  app.post(
    "/assistants/search",
    {
      schema: {
        tags,
        summary: "Search the tenant's assistants (LangGraph API)",
        description: "Answers the page; `X-Pagination-Next` gives the next page's offset when there is one, `X-Pagination-Total` the number of matches.",
        body: searchSchema,
        response: { 200: z.array(assistantView.partial()), ...bodyErrors() },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const views = sortedBy((await matching(principalOf(request), body)).map(toAssistantView), body.sort_by, body.sort_order);
      return selected(paginate(reply, views, body), body.select);
    },
  );

  app.post(
    "/assistants/count",
    { schema: { tags, summary: "Count the tenant's assistants that match (LangGraph API)", body: z.strictObject(filterSchema), response: { 200: z.number().int(), ...bodyErrors() } } },
    async (request) => (await matching(principalOf(request), request.body)).length,
  );

  app.get(
    "/assistants/:assistant_id",
    { schema: { tags, summary: "Read an assistant (LangGraph API)", params: assistantParams, response: { 200: assistantView, ...inputErrors("NOT_FOUND") } } },
    async (request) => toAssistantView(await requireAssistant(tenantOf(request), request.params.assistant_id)),
  );

  app.patch(
    "/assistants/:assistant_id",
    {
      schema: {
        tags,
        summary: "Change an assistant (LangGraph API): a new version, numbered one above its highest, becomes current",
        params: assistantParams,
        body: updateSchema,
        response: { 200: assistantView, ...bodyErrors(...REFERENCE_CODES, "NOT_FOUND") },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const { body } = request;
      const id = assistantIdOf(graphs, request.params.assistant_id);
      requireGraph(body.graph_id);
      const graph = body.graph_id ?? (await requireAssistant(tenantId, id)).graph;
      const changesSettings = body.context !== undefined || Object.keys(reactSettingsIn(configurableOf(body.config))).length > 0;
      const settings = changesSettings ? await settingsFor(tenantId, graph, body.context, body.config) : undefined;
      const updated = await assistants.updateAssistant(tenantId, id, {
        ...(body.graph_id === undefined ? {} : { graph: body.graph_id }),
        ...(body.name === undefined ? {} : { name: body.name }),
        ...(body.description === undefined ? {} : { description: body.description ?? "" }),
        ...(body.metadata === undefined ? {} : { metadata: body.metadata }),
        ...(body.config === undefined ? {} : { graphConfig: body.config }),
        ...(settings ? { model: settings.model, tools: settings.tools, systemPrompt: settings.systemPrompt, graphContext: settings.graphContext } : {}),
      });
      if (!updated) throw notFound(id);
      return toAssistantView(updated);
    },
  );

  app.post(
    "/assistants/:assistant_id/versions",
    {
      schema: {
        tags,
        summary: "The assistant's versions, newest first (LangGraph API)",
        params: assistantParams,
        body: versionsSchema,
        response: { 200: z.array(assistantVersionView), ...bodyErrors("NOT_FOUND") },
      },
    },
    async (request) => {
      const id = assistantIdOf(graphs, request.params.assistant_id);
      const versions = await assistants.listAssistantVersions(tenantOf(request), id, request.body);
      if (!versions) throw notFound(id);
      return versions.map(toAssistantVersionView);
    },
  );

  app.post(
    "/assistants/:assistant_id/latest",
    {
      schema: {
        tags,
        summary: "Make one of the assistant's versions current: its fields become that version's, runs use it (LangGraph API)",
        params: assistantParams,
        body: latestSchema,
        response: { 200: assistantView, ...bodyErrors("NOT_FOUND") },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const id = assistantIdOf(graphs, request.params.assistant_id);
      const { version } = request.body;
      const current = await assistants.setCurrentAssistantVersion(tenantId, id, version);
      if (current) return toAssistantView(current);
      await requireAssistant(tenantId, id);
      throw new HttpError("NOT_FOUND", `Assistant ${id} has no version ${version}`);
    },
  );

  app.delete(
    "/assistants/:assistant_id",
    {
      schema: {
        tags,
        summary: "Delete an assistant (LangGraph API); its threads stay unless delete_threads=true",
        params: assistantParams,
        querystring: deleteQuery,
        response: { 204: noContent, ...inputErrors("NOT_FOUND", "THREAD_BUSY") },
      },
    },
    async (request, reply) => {
      const id = assistantIdOf(graphs, request.params.assistant_id);
      if (request.query.delete_threads === "true") {
        await requireAssistant(tenantOf(request), id);
        await deleteAssistantThreads(gateway, tenantOf(request), id);
      }
      if (!(await assistants.deleteAssistant(tenantOf(request), id))) throw notFound(id);
      return reply.status(204).send();
    },
  );

  app.get(
    "/assistants/:assistant_id/graph",
    {
      schema: {
        tags,
        summary: "The assistant's graph: its nodes and edges (LangGraph API)",
        params: assistantParams,
        querystring: graphQuery,
        response: { 200: z.object({ nodes: z.array(z.record(z.string(), z.unknown())), edges: z.array(z.record(z.string(), z.unknown())) }), ...inputErrors("NOT_FOUND") },
      },
    },
    async (request) => {
      const { graph } = await requireAssistant(tenantOf(request), request.params.assistant_id);
      const { xray } = request.query;
      const drawing = graph === REACT_GRAPH_ID ? reactGraphDrawing() : deployedGraphs().drawing(graph, xray === undefined || xray === "false" ? undefined : xray === "true" ? true : xray);
      return drawing as Promise<{ nodes: Record<string, unknown>[]; edges: Record<string, unknown>[] }>;
    },
  );

  const deployedGraphs = () => {
    if (!graphs.deployed) throw new HttpError("NOT_FOUND", "Graph not found");
    return graphs.deployed;
  };

  const subgraphs = async (tenantId: string, id: string, namespace: string | undefined, recurse: boolean) => {
    const { graph } = await requireAssistant(tenantId, id);
    // The ReAct graph has no subgraphs.
    return graph === REACT_GRAPH_ID ? {} : deployedGraphs().subgraphSchemas(graph, namespace, recurse);
  };

  app.get(
    "/assistants/:assistant_id/subgraphs",
    {
      schema: {
        tags,
        summary: "The schemas of the assistant's graph's subgraphs, by namespace (LangGraph API)",
        params: assistantParams,
        querystring: subgraphQuery,
        response: { 200: z.record(z.string(), z.unknown()), ...inputErrors("NOT_FOUND") },
      },
    },
    async (request) => subgraphs(tenantOf(request), request.params.assistant_id, undefined, request.query.recurse === "true"),
  );

  app.get(
    "/assistants/:assistant_id/subgraphs/:namespace",
    {
      schema: {
        tags,
        summary: "The schemas of one of the assistant's graph's subgraphs (LangGraph API)",
        params: subgraphParams,
        querystring: subgraphQuery,
        response: { 200: z.record(z.string(), z.unknown()), ...inputErrors("NOT_FOUND") },
      },
    },
    async (request) => subgraphs(tenantOf(request), request.params.assistant_id, request.params.namespace, request.query.recurse === "true"),
  );

  app.get(
    "/assistants/:assistant_id/schemas",
    {
      schema: {
        tags,
        summary: "The JSON schemas of the assistant's graph: input, output, state, config, context (LangGraph API)",
        params: assistantParams,
        response: { 200: schemasView, ...inputErrors("NOT_FOUND") },
      },
    },
    async (request) => {
      const { graph } = await requireAssistant(tenantOf(request), request.params.assistant_id);
      return graph === REACT_GRAPH_ID ? reactGraphSchemas() : { graph_id: graph, ...(await deployedGraphs().schemas(graph)) };
    },
  );
};
