import type { Assistant } from "@axiom-lattice/protocols";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type AIMessage, type BaseMessage, SystemMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { END, type LangGraphRunnableConfig, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import type { ModelProviderRegistry } from "../models/modelRegistry";
import type { UpstreamPolicy } from "../models/upstreamPolicy";
import { TASK_TOOL } from "../tasks/taskToolName";
import { asUpstreamError } from "../models/upstreamErrors";
import { ASK_HUMAN_TOOL, askHumanTool } from "../tools/askHuman";
import { type ThreadGraphState, ThreadStateAnnotation } from "./runBoundaries";
import type { ToolRegistry } from "../tools/toolRegistry";

/** The node names of the ReAct graph (chunks are attributed by node). */
export const AGENT_NODE = "agent";
export const TOOLS_NODE = "tools";
/** The nodes a run may pause before or after (LangGraph's `interrupt_before` / `interrupt_after`). */
export const GRAPH_NODES = [AGENT_NODE, TOOLS_NODE] as const;
/** Node names to pause at (the ReAct graph's, or a deployed graph's own), or `*` for every node. */
export type NodeInterrupt = string[] | "*";

export interface ReactGraphParts {
  model: BaseChatModel;
  tools: StructuredToolInterface[];
  systemPrompt?: string;
}

/**
 * The ReAct loop: the model node answers or calls tools, the tools node runs them (including
 * `ask_human`, which interrupts for human input), and control returns to the model until it answers.
 */
export function buildReactGraph({ model, tools, systemPrompt }: ReactGraphParts, checkpointer: BaseCheckpointSaver) {
  const allTools = [...tools, askHumanTool];
  const withTools = model.bindTools ? model.bindTools(allTools) : model;
  const callModel = async (state: ThreadGraphState, config: LangGraphRunnableConfig) => {
    const prompt = systemPrompt ? [new SystemMessage(systemPrompt), ...state.messages] : state.messages;
    return { messages: [await answerOf(withTools, prompt, config)] };
  };
  return new StateGraph(ThreadStateAnnotation)
    .addNode(AGENT_NODE, callModel)
    .addNode(TOOLS_NODE, new ToolNode(allTools))
    .addEdge(START, AGENT_NODE)
    .addConditionalEdges(AGENT_NODE, toolsCondition, [TOOLS_NODE, END])
    .addEdge(TOOLS_NODE, AGENT_NODE)
    .compile({ checkpointer });
}

/**
 * The model's answer. A failure of the model's API becomes an `UpstreamError` with a stable code; an
 * aborted run's failure stays what it is.
 */
async function answerOf(model: Runnable<BaseMessage[], AIMessage>, prompt: BaseMessage[], config: LangGraphRunnableConfig): Promise<AIMessage> {
  try {
    return await model.invoke(prompt, hasCallbackHandlers(config) ? config : { ...config, callbacks: [STREAMED_ANSWER] });
  } catch (error) {
    throw config.signal?.aborted ? error : asUpstreamError(error);
  }
}

/**
 * Asks a chat model for its answer as a stream, as LangGraph's `messages` mode does. A run that streams
 * no tokens has no callback handler on its graph (each costs every runnable of every step); its model
 * still streams from its API (the answer's id and a long answer's time limit stay as when tokens stream).
 */
class StreamedAnswer extends BaseCallbackHandler {
  readonly name = "streamed_answer";
  readonly lc_prefer_streaming = true;
}

const STREAMED_ANSWER = new StreamedAnswer();

function hasCallbackHandlers({ callbacks }: LangGraphRunnableConfig): boolean {
  if (callbacks === undefined) return false;
  return (Array.isArray(callbacks) ? callbacks.length : callbacks.handlers.length) > 0;
}

export type AssistantGraph = ReturnType<typeof buildReactGraph>;

/** What assistants' names resolve against: one agent runtime's model providers and tools. */
export interface AssistantRegistries {
  models: ModelProviderRegistry;
  tools: ToolRegistry;
}

/**
 * The graph of a stored assistant: its model, its tools (resolved by name in `registries`, else among
 * `tenantTools`) and its system prompt.
 * `runtimeTools` are the runtime's own (such as `task`), which every assistant of it has;
 * `tenantTools` are the assistant's tenant's own (its MCP servers' tools), which it may list.
 */
export function buildAssistantGraph(
  assistant: Pick<Assistant, "model" | "tools" | "systemPrompt">,
  checkpointer: BaseCheckpointSaver,
  registries: AssistantRegistries,
  runtimeTools: StructuredToolInterface[] = [],
  upstream?: UpstreamPolicy,
  tenantTools?: ReadonlyMap<string, StructuredToolInterface>,
): AssistantGraph {
  return buildReactGraph(
    {
      model: registries.models.createChatModel(assistant.model, upstream),
      tools: assistantTools(assistant.tools, registries.tools, runtimeTools, tenantTools),
      systemPrompt: assistant.systemPrompt,
    },
    checkpointer,
  );
}

/** The tools of an assistant's graph: those it names (registered or its tenant's) and the runtime's own. */
export function assistantTools(
  names: readonly string[],
  registered: ToolRegistry,
  runtimeTools: StructuredToolInterface[],
  tenantTools?: ReadonlyMap<string, StructuredToolInterface>,
): StructuredToolInterface[] {
  return [...registeredToolsOf(names, registered, runtimeTools.map((tool) => tool.name), tenantTools), ...runtimeTools];
}

/**
 * The registered or tenant's tools among `names`, leaving out the runtime's own; throws
 * `UnknownToolError` for any other name.
 */
function registeredToolsOf(
  names: readonly string[],
  registered: ToolRegistry,
  runtimeToolNames: readonly string[],
  tenantTools?: ReadonlyMap<string, StructuredToolInterface>,
): StructuredToolInterface[] {
  const builtIn = new Set([ASK_HUMAN_TOOL, ...runtimeToolNames]);
  return registered.resolve(names.filter((name) => !builtIn.has(name)), tenantTools);
}

/**
 * Refuses an assistant configuration a run could not build: a model provider or a tool that is not
 * registered nor among `tenantTools` (`UnknownModelProviderError`, `UnknownToolError`). The
 * runtime's own tools (`task`, `ask_human`) count as known.
 */
export function checkAssistantReferences(
  { model, tools }: Pick<Assistant, "model" | "tools">,
  registries: AssistantRegistries,
  tenantTools?: ReadonlyMap<string, StructuredToolInterface>,
): void {
  registries.models.get(model.provider);
  registeredToolsOf(tools, registries.tools, [TASK_TOOL], tenantTools);
}
