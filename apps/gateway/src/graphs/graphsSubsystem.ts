import { REACT_GRAPH_ID } from "@axiom-lattice/agent";
import type { Logger } from "@axiom-lattice/core";
import { z } from "zod";
import type { GatewayConfig } from "../config";
import { ConfigError } from "../configError";
import type { Subsystem } from "../context/subsystem";
import type { GatewayStores } from "../stores/gatewayStores";
import { DeployedGraphCatalog } from "./deployedGraphCatalog";
import { GenerativeUi } from "./generativeUi";
import { provideGraphLogger } from "./graphLogger";
import { type LanggraphDeployment, readLanggraphDeployment } from "./langgraphConfig";
import { type OperatorApp, loadOperatorApp } from "./operatorRoutes";
import { type GraphDefaults, SystemAssistants } from "./systemAssistants";

/** The graphs this gateway serves, as its routes and runtime use them. */
export interface GatewayGraphs {
  /** Every graph id served: the ReAct agent's first, then the deployment's in its file's order. */
  readonly ids: readonly string[];
  has(graphId: string): boolean;
  /** The deployed graphs (none without `AXIOM_LANGGRAPH_CONFIG`). */
  readonly deployed?: DeployedGraphCatalog;
  /** The operator's `langgraph.json`, as read. */
  readonly deployment?: LanggraphDeployment;
  /** Each graph's default assistant, per tenant. */
  readonly systemAssistants: SystemAssistants;
  /** The operator's custom routes (`http.app`). */
  readonly operatorApp?: OperatorApp;
  /** The deployment's generative UI components (`ui`), bundled. */
  readonly ui?: GenerativeUi;
}

export interface GraphsSubsystem extends Subsystem {
  graphs: GatewayGraphs;
}

/**
 * The graphs: the built-in ReAct agent, and those of the operator's `langgraph.json`
 * (`AXIOM_LANGGRAPH_CONFIG`), loaded before anything runs. Its `env` is applied first (the
 * operator's own environment wins), since graphs read it when they load; a graph that fails to load
 * stops the gateway.
 */
export async function graphsSubsystem({ config, stores, logger }: { config: GatewayConfig; stores: GatewayStores; logger: Logger }): Promise<GraphsSubsystem> {
  const deployment = config.langgraphConfig === undefined ? undefined : await readLanggraphDeployment(config.langgraphConfig);
  if (deployment && REACT_GRAPH_ID in deployment.graphs) {
    throw new ConfigError("AXIOM_LANGGRAPH_CONFIG", `${deployment.path}: graph id "${REACT_GRAPH_ID}" is the built-in ReAct agent's; name the graph otherwise`);
  }
  for (const [name, value] of Object.entries(deployment?.env ?? {})) process.env[name] ??= value;
  if (deployment) provideGraphLogger(logger);
  const deployed = deployment && (await DeployedGraphCatalog.load(deployment, stores.checkpoint));
  const operatorApp = deployment?.httpApp && (await loadOperatorApp(deployment.httpApp));
  const ui = deployment && (await GenerativeUi.build(deployment));
  const ids = [REACT_GRAPH_ID, ...(deployed?.ids() ?? [])];
  if (deployment) logger.info({ phase: "startup", graphs: ids, config: deployment.path, nodeVersion: deployment.nodeVersion }, "graphs loaded");
  const graphs: GatewayGraphs = {
    ids,
    has: (graphId) => ids.includes(graphId),
    ...(deployed ? { deployed } : {}),
    ...(deployment ? { deployment } : {}),
    ...(operatorApp ? { operatorApp } : {}),
    ...(ui ? { ui } : {}),
    systemAssistants: new SystemAssistants(stores.assistants, ids, graphDefaults(process.env.LANGGRAPH_CONFIG)),
  };
  return { name: "graphs", graphs };
}

const defaultsSchema = z.record(z.string(), z.record(z.string(), z.unknown()));

/** `LANGGRAPH_CONFIG`: each graph's default assistant's config, `context` apart (as the LangGraph CLI reads it). */
function graphDefaults(raw: string | undefined): GraphDefaults {
  if (raw === undefined || raw.trim() === "") return {};
  let parsed: z.output<typeof defaultsSchema>;
  try {
    parsed = defaultsSchema.parse(JSON.parse(raw));
  } catch {
    throw new ConfigError("LANGGRAPH_CONFIG", "must be a JSON object of graph ids, each with its default assistant's config");
  }
  return Object.fromEntries(
    Object.entries(parsed).map(([graphId, { context, ...config }]) => [graphId, { config, context: (context ?? {}) as Record<string, unknown> }]),
  );
}
