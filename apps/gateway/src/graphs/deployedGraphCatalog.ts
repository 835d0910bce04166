import { type AssistantGraph, type DeployedGraphs, GraphNotFoundError } from "@axiom-lattice/agent";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import { ConfigError } from "../configError";
import type { TypeSchemas } from "./graphTypeSchemas";
import type { LanggraphDeployment, ModuleExport } from "./langgraphConfig";
import { importBeside, importExport } from "./operatorModules";
import { typeSchemasInWorker } from "./typeSchemasInWorker";

/** A compiled graph as the catalogue handles it: whichever copy of LangGraph built it. */
interface CompiledGraphLike {
  builder: object;
  checkpointer?: unknown;
  getGraphAsync(config?: RunnableConfig & { xray?: boolean | number }): Promise<{ toJSON(): unknown }>;
  getSubgraphsAsync(namespace?: string, recurse?: boolean): AsyncIterable<[string, CompiledGraphLike]>;
}

type GraphFactory = (config: RunnableConfig) => Promise<CompiledGraphLike>;

interface DeployedGraph {
  source: ModuleExport;
  /** The graph itself, or (a factory) what builds one per run. */
  graph: CompiledGraphLike | GraphFactory;
}

/** The JSON schemas of a graph, as `GET /assistants/{id}/schemas` answers them. */
export interface GraphSchemas {
  input_schema: unknown;
  output_schema: unknown;
  state_schema: unknown;
  config_schema: unknown;
  context_schema: unknown;
}

/**
 * A subgraph's schemas (`GET /assistants/{id}/subgraphs`), named both as the LangGraph JS server
 * answers them (`state`, `input`, `output`, `config`) and as the SDK's `Subgraphs` type declares them
 * (`state_schema`, …), so that clients of either read them.
 */
export type SubgraphSchemas = GraphSchemas & { state: unknown; input: unknown; output: unknown; config: unknown };

const isCompiled = (value: unknown): value is CompiledGraphLike =>
  typeof value === "object" && value !== null && typeof (value as { builder?: unknown }).builder === "object" && (value as { builder?: unknown }).builder !== null;

const isUncompiled = (value: unknown): value is { compile(): unknown } => typeof value === "object" && value !== null && typeof (value as { compile?: unknown }).compile === "function";

/** A compiled graph from anything the LangGraph CLI accepts: compiled, a `StateGraph` to compile, or an agent wrapping one. */
function compiledOf(value: unknown): CompiledGraphLike {
  const graph = isCompiled(value) ? value : isUncompiled(value) ? value.compile() : value;
  // `createAgent` answers a wrapper that looks compiled and holds the real graph as `graph`.
  const inner = (graph as { graph?: unknown } | null)?.graph;
  if (isCompiled(inner)) return inner;
  if (!isCompiled(graph)) throw new Error("is not a graph: export a compiled graph, a StateGraph, or a function of the run's config that returns one");
  return graph;
}

/**
 * The graphs of the operator's `langgraph.json`, loaded once at start: the same on every replica, as
 * each reads the same file. Every graph reads and writes checkpoints through the gateway's saver: a
 * run lends its own, fenced, through its config (see `runTarget`).
 */
export class DeployedGraphCatalog implements DeployedGraphs {
  private readonly readers = new Map<string, Promise<CompiledGraphLike>>();
  /** Each graph's schemas from its TypeScript types, by namespace: worked out once, when first asked for. */
  private readonly typeSchemas = new Map<string, Promise<Record<string, TypeSchemas>>>();

  private constructor(
    private readonly graphs: ReadonlyMap<string, DeployedGraph>,
    private readonly checkpointer: BaseCheckpointSaver,
  ) {}

  /** Loads every graph of the deployment; the first that fails stops the gateway with one line naming it and its file. */
  static async load(deployment: Pick<LanggraphDeployment, "graphs">, checkpointer: BaseCheckpointSaver): Promise<DeployedGraphCatalog> {
    const graphs = new Map<string, DeployedGraph>();
    for (const [graphId, source] of Object.entries(deployment.graphs)) {
      try {
        const exported = await importExport(source);
        const graph: DeployedGraph["graph"] =
          typeof exported === "function" && !isCompiled(exported) ? async (config) => compiledOf(await (exported as (config: RunnableConfig) => unknown)(config)) : compiledOf(await exported);
        graphs.set(graphId, { source, graph });
      } catch (error) {
        throw new ConfigError("AXIOM_LANGGRAPH_CONFIG", `graph "${graphId}" (${source.file}:${source.exportName}) ${loadFailureOf(error)}`);
      }
    }
    return new DeployedGraphCatalog(graphs, checkpointer);
  }

  /** The deployed graphs' ids, in the file's order. */
  ids(): string[] {
    return [...this.graphs.keys()];
  }

  has(graphId: string): boolean {
    return this.graphs.has(graphId);
  }

  async graphFor(graphId: string, config?: RunnableConfig): Promise<AssistantGraph> {
    const deployed = this.graphs.get(graphId);
    if (!deployed) throw new GraphNotFoundError(graphId);
    const { graph } = deployed;
    if (typeof graph !== "function") return this.withSaver(graph);
    if (config) return this.withSaver(await graph(config));
    return this.withSaver(await this.readerOf(graphId, graph));
  }

  /** The graph's nodes and edges (`GET /assistants/{id}/graph`); `xray` draws subgraphs inside their nodes. */
  async drawing(graphId: string, xray?: boolean | number): Promise<unknown> {
    const graph = await this.plainGraphOf(graphId);
    return (await graph.getGraphAsync(xray === undefined ? {} : { xray })).toJSON();
  }

  /**
   * The graph's JSON schemas: from its zod or `StateSchema` state, or else (an `Annotation` state) from
   * its TypeScript types, as the platform falls back to them. Null where neither gives one.
   */
  async schemas(graphId: string): Promise<GraphSchemas> {
    const runtime = await this.schemasOf(this.graphs.get(graphId)!.source.file, await this.plainGraphOf(graphId));
    return hasAny(runtime) ? runtime : schemasOfTypes((await this.typeSchemasOf(graphId))[""]);
  }

  /** The schemas of the graph's subgraphs, by namespace (`parent|child` with `recurse`), found as the graph's own are. */
  async subgraphSchemas(graphId: string, namespace?: string, recurse = false): Promise<Record<string, SubgraphSchemas>> {
    const file = this.graphs.get(graphId)!.source.file;
    const graph = await this.plainGraphOf(graphId);
    const result: Record<string, SubgraphSchemas> = {};
    for await (const [name, subgraph] of graph.getSubgraphsAsync(namespace, recurse)) {
      const runtime = await this.schemasOf(file, subgraph);
      const schemas = hasAny(runtime) ? runtime : schemasOfTypes((await this.typeSchemasOf(graphId))[name]);
      result[name] = { ...schemas, state: schemas.state_schema, input: schemas.input_schema, output: schemas.output_schema, config: schemas.config_schema };
    }
    return result;
  }

  /** The graph's schemas from its types; none (`{}`) when they cannot be worked out, asked again next time. */
  private async typeSchemasOf(graphId: string): Promise<Record<string, TypeSchemas>> {
    let schemas = this.typeSchemas.get(graphId);
    if (!schemas) {
      schemas = typeSchemasInWorker(this.graphs.get(graphId)!.source);
      this.typeSchemas.set(graphId, schemas);
    }
    try {
      return await schemas;
    } catch {
      if (this.typeSchemas.get(graphId) === schemas) this.typeSchemas.delete(graphId);
      return {};
    }
  }

  private async plainGraphOf(graphId: string): Promise<CompiledGraphLike> {
    const deployed = this.graphs.get(graphId);
    if (!deployed) throw new GraphNotFoundError(graphId);
    return typeof deployed.graph === "function" ? this.readerOf(graphId, deployed.graph) : deployed.graph;
  }

  /** A factory's graph for reading threads' state and drawing: built once, from an empty config. */
  private readerOf(graphId: string, factory: GraphFactory): Promise<CompiledGraphLike> {
    let reader = this.readers.get(graphId);
    if (!reader) {
      reader = factory({ configurable: {} });
      this.readers.set(graphId, reader);
      reader.catch(() => this.readers.delete(graphId));
    }
    return reader;
  }

  /** The gateway's saver replaces whatever the graph was compiled with, as on LangGraph Platform: threads live in the gateway's stores. */
  private withSaver(graph: CompiledGraphLike): AssistantGraph {
    graph.checkpointer = this.checkpointer;
    // The runtime drives every graph as it drives the ReAct graph; the state it reads is the graph's own.
    return graph as unknown as AssistantGraph;
  }

  private async schemasOf(file: string, graph: CompiledGraphLike): Promise<GraphSchemas> {
    // The graph's own copy of LangGraph knows its schemas (and its zod registry).
    const helpers = (await importBeside(file, "@langchain/langgraph/zod/schema")) as Record<string, ((graph: unknown) => unknown) | undefined> | undefined;
    const schemaOf = (name: string) => {
      try {
        return helpers?.[name]?.(graph) ?? null;
      } catch {
        return null;
      }
    };
    const config = schemaOf("getConfigTypeSchema");
    // LangGraph JS cannot tell a context schema from a config schema: both are the same here, as on the platform.
    return { input_schema: schemaOf("getInputTypeSchema"), output_schema: schemaOf("getOutputTypeSchema"), state_schema: schemaOf("getStateTypeSchema"), config_schema: config, context_schema: config };
  }
}

const hasAny = (schemas: GraphSchemas) => Object.values(schemas).some((schema) => schema !== null);

// LangGraph JS cannot tell a context schema from a config schema: both are the config's type, as on the platform.
const schemasOfTypes = (types: TypeSchemas | undefined): GraphSchemas => ({
  input_schema: types?.input ?? null,
  output_schema: types?.output ?? null,
  state_schema: types?.state ?? null,
  config_schema: types?.config ?? null,
  context_schema: types?.config ?? null,
});

function loadFailureOf(error: unknown): string {
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return message.startsWith("is not") || message.startsWith("exports no") ? message : `failed to load: ${message}`;
}
