import type { ThreadRunHandle, ThreadRunScope } from "@axiom-lattice/core";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { checkpointConfig } from "../graph/checkpointThread";
import { GraphNotFoundError, REACT_GRAPH_ID } from "../graph/deployedGraphs";
import { withFencedCheckpoints } from "../graph/fencedCheckpointer";
import type { AssistantGraph } from "../graph/reactGraph";
import { TenantStore } from "../graph/tenantStore";
import type { TaskRunRef } from "../tasks/taskRunPlace";
import { taskToolConfigurable } from "../tasks/taskTool";
import { AssistantNotFoundError } from "./errors";
import type { RunContent } from "./runContent";
import { isDatabaseOutage } from "./databaseOutage";
import { recordRunInput } from "./runExecution";
import { type RuntimeContext, reactGraphOf, stateReaderOf } from "./runtimeContext";

/** The graph a run executes, and the config it runs with. */
export interface RunTarget {
  graph: AssistantGraph;
  config: LangGraphRunnableConfig;
  /** A graph the operator deployed: its input goes in as given. Otherwise the ReAct graph. */
  deployed: boolean;
}

export interface RunTargetRequest {
  messageId: string;
  content: RunContent;
  lease: ThreadRunHandle;
  /** The task the run executes, if any: the `task` tool delegates for it. */
  taskRun?: TaskRunRef;
}

/**
 * What a run executes: the graph of its assistant (the one the run names, on a thread not tied to
 * one), with its checkpoints and its tenant's store written under the lease's tenure.
 *
 * The ReAct graph is built from the assistant's model, tools and prompt, with the run's own settings
 * over them. A deployed graph gets the assistant's `config.configurable` and `context` with the run's
 * over them, as LangGraph Platform gives them; its run id, thread, assistant and graph are in the
 * config's metadata and on every checkpoint it writes, which is how an attempt that follows a
 * replica's death knows the run already started (see `deployedRunInput`).
 */
export async function runTarget(context: RuntimeContext, scope: ThreadRunScope, { messageId, content, lease, taskRun }: RunTargetRequest): Promise<RunTarget> {
  const assistantId = content.assistantId ?? scope.assistantId;
  const assistant = await context.assistants.getAssistant(scope.tenantId, assistantId);
  const store = new TenantStore(context.items, scope.tenantId, lease);
  if (!assistant || assistant.graph === REACT_GRAPH_ID) {
    const config = withFencedCheckpoints(checkpointConfig(scope), context.checkpointer, lease);
    let graph: AssistantGraph;
    try {
      if (!assistant) throw new AssistantNotFoundError(scope.tenantId, assistantId);
      graph = await reactGraphOf(context, scope, assistant, content.graph?.settings);
    } catch (error) {
      // A run whose graph cannot be built (its assistant is gone, or names a tool or provider that
      // is) fails as a run whose model failed does: with its input kept in the thread.
      if (!isDatabaseOutage(error)) await recordRunInput(await stateReaderOf(context), config, messageId, content);
      throw error;
    }
    if (!context.tasks) return { graph, config: { ...config, store }, deployed: false };
    return { graph, config: { ...config, configurable: { ...config.configurable, ...taskToolConfigurable({ caller: scope, callerRun: taskRun }) }, store }, deployed: false };
  }
  const graphs = context.graphs;
  if (!graphs?.has(assistant.graph)) throw new GraphNotFoundError(assistant.graph);
  const metadata = { ...content.graph?.metadata, run_id: messageId, thread_id: scope.threadId, assistant_id: assistant.id, graph_id: assistant.graph };
  const addressed = checkpointConfig(scope);
  const own = {
    // The thread's address comes last: a graph's settings cannot point its run at another thread.
    configurable: { ...configurableOf(assistant.graphConfig), ...content.graph?.configurable, run_id: messageId, assistant_id: assistant.id, graph_id: assistant.graph, ...addressed.configurable },
    context: { ...assistant.graphContext, ...content.graph?.context },
    metadata,
    store,
  };
  const config = withFencedCheckpoints(own, context.checkpointer, lease, metadata);
  return { graph: await graphs.graphFor(assistant.graph, config), config, deployed: true };
}

const configurableOf = (config: Record<string, unknown>): Record<string, unknown> => {
  const configurable = config.configurable;
  return configurable !== null && typeof configurable === "object" && !Array.isArray(configurable) ? (configurable as Record<string, unknown>) : {};
};
