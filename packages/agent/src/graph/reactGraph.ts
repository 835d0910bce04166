import type { Assistant } from "@axiom-lattice/protocols";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { SystemMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { END, type LangGraphRunnableConfig, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { createChatModel } from "../models/modelRegistry";
import { ASK_HUMAN_TOOL, askHumanTool } from "../tools/askHuman";
import { type ThreadGraphState, ThreadStateAnnotation } from "./runBoundaries";
import { resolveTools } from "../tools/toolRegistry";

/** The node names of the ReAct graph (chunks are attributed by node). */
export const AGENT_NODE = "agent";
export const TOOLS_NODE = "tools";

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
    return { messages: [await withTools.invoke(prompt, config)] };
  };
  return new StateGraph(ThreadStateAnnotation)
    .addNode(AGENT_NODE, callModel)
    .addNode(TOOLS_NODE, new ToolNode(allTools))
    .addEdge(START, AGENT_NODE)
    .addConditionalEdges(AGENT_NODE, toolsCondition, [TOOLS_NODE, END])
    .addEdge(TOOLS_NODE, AGENT_NODE)
    .compile({ checkpointer });
}

export type AssistantGraph = ReturnType<typeof buildReactGraph>;

/**
 * The graph of a stored assistant: its model, its tools (resolved by name) and its system prompt.
 * `runtimeTools` are the runtime's own (such as `task`), which every assistant of it has;
 * `tenantTools` are the assistant's tenant's own (its MCP servers' tools), which it may list.
 */
export function buildAssistantGraph(
  assistant: Pick<Assistant, "model" | "tools" | "systemPrompt">,
  checkpointer: BaseCheckpointSaver,
  runtimeTools: StructuredToolInterface[] = [],
  tenantTools?: ReadonlyMap<string, StructuredToolInterface>,
): AssistantGraph {
  const builtIn = new Set([ASK_HUMAN_TOOL, ...runtimeTools.map((tool) => tool.name)]);
  return buildReactGraph(
    {
      model: createChatModel(assistant.model),
      tools: [...resolveTools(assistant.tools.filter((name) => !builtIn.has(name)), tenantTools), ...runtimeTools],
      systemPrompt: assistant.systemPrompt,
    },
    checkpointer,
  );
}
