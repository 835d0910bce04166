import type { Assistant } from "@axiom-lattice/protocols";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { ASSISTANT_GRAPH_CACHE_SIZE } from "../defaults";
import type { UpstreamPolicy } from "../models/upstreamPolicy";
import { type AssistantGraph, type AssistantRegistries, assistantTools, buildReactGraph } from "./reactGraph";

/** A number per object, for keys made of instances (tools, provider factories). */
const identities = new WeakMap<object, number>();
let lastIdentity = 0;
function identityOf(instance: object): number {
  let identity = identities.get(instance);
  if (identity === undefined) identities.set(instance, (identity = ++lastIdentity));
  return identity;
}

/**
 * One runtime's compiled assistant graphs, by what each is built from: the model's configuration and
 * its provider's factory, the system prompt, and the tool instances. Compiling a graph and building
 * its model cost more CPU than a short run's own steps, and a compiled graph holds no run's state
 * (LangGraph runs one graph many times at once; a run's thread and caller come in its config), so
 * runs of one configuration share one graph. A changed assistant, a reconnected MCP server (new tool
 * instances) or a re-registered provider makes a new key. At most `limit` graphs, the least recently
 * used dropped first.
 */
export class AssistantGraphs {
  private readonly graphs = new Map<string, AssistantGraph>();

  constructor(
    private readonly checkpointer: BaseCheckpointSaver,
    /** The runtime's own tools, which every graph has (they read the run from its config). */
    private readonly runtimeTools: StructuredToolInterface[],
    private readonly upstream: UpstreamPolicy,
    /** The runtime's model providers and tools, which assistants name. */
    private readonly registries: AssistantRegistries,
    private readonly limit = ASSISTANT_GRAPH_CACHE_SIZE,
  ) {}

  /** The graph of the assistant's configuration; throws as `buildAssistantGraph` does for a name it cannot resolve. */
  graphOf(assistant: Pick<Assistant, "model" | "tools" | "systemPrompt">, tenantTools?: ReadonlyMap<string, StructuredToolInterface>): AssistantGraph {
    const { models } = this.registries;
    const tools = assistantTools(assistant.tools, this.registries.tools, this.runtimeTools, tenantTools);
    const key = JSON.stringify([identityOf(models.get(assistant.model.provider)), assistant.model, assistant.systemPrompt ?? null, tools.map(identityOf)]);
    const graph =
      this.graphs.get(key) ??
      buildReactGraph({ model: models.createChatModel(assistant.model, this.upstream), tools, systemPrompt: assistant.systemPrompt }, this.checkpointer);
    // Re-inserted: the map's order is the order of use, oldest first.
    this.graphs.delete(key);
    this.graphs.set(key, graph);
    if (this.graphs.size > this.limit) this.graphs.delete(this.graphs.keys().next().value!);
    return graph;
  }
}
