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
