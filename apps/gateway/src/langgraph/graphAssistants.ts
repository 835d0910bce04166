import { REACT_GRAPH_ID } from "@axiom-lattice/agent";
import type { Thread } from "@axiom-lattice/protocols";
import type { GatewayGraphs } from "../graphs/graphsSubsystem";
import { systemAssistantId } from "../graphs/systemAssistants";

/**
 * The assistant an id names in the LangGraph API: a graph's id stands for the graph's default
 * assistant, as on LangGraph Platform (clients name `"agent"` as their assistant); any other id is
 * an assistant's own.
 */
export const assistantIdOf = (graphs: Pick<GatewayGraphs, "has">, id: string): string => (graphs.has(id) ? systemAssistantId(id) : id);

/**
 * The graph a LangGraph thread's state belongs to, as its metadata names it (the graph of its last
 * run, or the one it was created for); undefined lets the runtime read it from the thread's checkpoints.
 */
export const threadGraphId = (thread: Pick<Thread, "metadata">): string | undefined => {
  const graphId = thread.metadata.graph_id;
  return typeof graphId === "string" ? graphId : undefined;
};

/**
 * The graph whose rules a state update of the thread is checked by at the edge: its own, or on a
 * gateway serving the ReAct agent alone, the ReAct graph's; undefined leaves the check to the runtime,
 * which reads the graph from the thread's checkpoints.
 */
export const stateGraphOf = (graphs: Pick<GatewayGraphs, "deployed">, thread: Pick<Thread, "metadata">): string | undefined =>
  threadGraphId(thread) ?? (graphs.deployed ? undefined : REACT_GRAPH_ID);
