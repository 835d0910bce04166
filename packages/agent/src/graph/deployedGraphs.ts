import type { ErrorCode } from "@axiom-lattice/protocols";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { AssistantGraph } from "./reactGraph";

/** The graph id of the built-in ReAct agent, one graph among those an operator deploys. */
export const REACT_GRAPH_ID = "react";

/**
 * The graphs an operator deployed beside the built-in ReAct agent (the gateway reads them from a
 * `langgraph.json`), by graph id. They are operator code, loaded from the operator's configuration
 * only. Their runs go through the same queue, leases, fenced checkpoints and run event log as the
 * ReAct agent's: only the graph differs.
 */
export interface DeployedGraphs {
  has(graphId: string): boolean;
  /**
   * The compiled graph a run executes: the graph itself, or what its factory builds from the run's
   * config. Without a config, a graph that reads threads' state (built once, from an empty config).
   * Typed as the ReAct graph, which the runtime drives the same way; the state it reads is the graph's own.
   */
  graphFor(graphId: string, config?: LangGraphRunnableConfig): Promise<AssistantGraph>;
}

/** An assistant names a graph this gateway does not serve (no longer in its `langgraph.json`, say). */
export class GraphNotFoundError extends Error {
  readonly code = "GRAPH_NOT_FOUND" satisfies ErrorCode;

  constructor(readonly graphId: string) {
    super(`Graph "${graphId}" not found`);
    this.name = "GraphNotFoundError";
  }
}

/** A subgraph's namespace (`node:task id`) names no subgraph of the thread's graph. */
export class SubgraphNotFoundError extends Error {
  readonly code = "NOT_FOUND" satisfies ErrorCode;

  constructor(readonly checkpointNs: string) {
    super(`Subgraph ${JSON.stringify(checkpointNs)} not found`);
    this.name = "SubgraphNotFoundError";
  }
}

/**
 * The graph refused a state update (LangGraph's `InvalidUpdateError`: a node it does not have, say):
 * the request's fault. Known by name, since a deployed graph may bring its own copy of LangGraph.
 */
export class InvalidStateUpdateError extends Error {
  readonly code = "INVALID_REQUEST" satisfies ErrorCode;

  constructor(message: string) {
    super(message);
    this.name = "InvalidStateUpdateError";
  }

  static from(error: unknown): unknown {
    return error instanceof Error && error.name === "InvalidUpdateError" ? new InvalidStateUpdateError(error.message) : error;
  }
}
