// The reference server's graph for B11: the same work as the gateway's `react` graph with its scripted
// model (one model step answering at once): one node that appends an AI message echoing the input.
import { AIMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";

const echo = (state) => {
  const last = state.messages.at(-1);
  const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
  return { messages: [new AIMessage(`echo: ${text}`)] };
};

export const graph = new StateGraph(MessagesAnnotation).addNode("echo", echo).addEdge("__start__", "echo").compile();
