import { tool } from "@langchain/core/tools";
import { interrupt } from "@langchain/langgraph";
import { z } from "zod";

export const ASK_HUMAN_TOOL = "ask_human";

/**
 * Human in the loop: the tool pauses the graph with LangGraph's `interrupt()` (the question is the
 * interrupt value); a resume `Command` supplies the answer, which becomes the tool's result. Every
 * assistant graph has it, so any model can ask the user.
 */
export const askHumanTool = tool(
  ({ question }) => {
    const answer: unknown = interrupt(question);
    return typeof answer === "string" ? answer : JSON.stringify(answer);
  },
  {
    name: ASK_HUMAN_TOOL,
    description: "Ask the user a question and wait for the answer.",
    schema: z.object({ question: z.string().describe("The question for the user") }),
  },
);
