import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_UPSTREAM_POLICY } from "../src/defaults";
import { AssistantGraphs } from "../src/graph/assistantGraphs";
import { ModelProviderRegistry } from "../src/models/modelRegistry";
import { ScriptedChatModel } from "../src/models/scriptedChatModel";
import { ToolRegistry } from "../src/tools/toolRegistry";

const assistant = { model: { provider: "scripted" }, tools: ["echo"], systemPrompt: "Be brief." };
const registries = () => ({ models: new ModelProviderRegistry(), tools: new ToolRegistry() });
const lookup = () => tool(async () => "found", { name: "crm__lookup", description: "Looks a customer up", schema: z.object({}) });

describe("AssistantGraphs", () => {
  it("compiles one graph per configuration and gives it to every run of that configuration", () => {
    const graphs = new AssistantGraphs(new MemorySaver(), [], DEFAULT_UPSTREAM_POLICY, registries());
    const graph = graphs.graphOf(assistant);
    expect(graphs.graphOf({ ...assistant, tools: ["echo"] })).toBe(graph);
    expect(graphs.graphOf({ ...assistant, systemPrompt: "Be thorough." })).not.toBe(graph);
    expect(graphs.graphOf({ ...assistant, tools: ["echo", "clock"] })).not.toBe(graph);
    expect(graphs.graphOf({ ...assistant, model: { provider: "scripted", model: "other" } })).not.toBe(graph);
  });

  it("compiles anew for new tool instances (an MCP server reconnected) and a re-registered provider", () => {
    const { models, tools: registered } = registries();
    const graphs = new AssistantGraphs(new MemorySaver(), [], DEFAULT_UPSTREAM_POLICY, { models, tools: registered });
    const mcp = { ...assistant, tools: ["crm__lookup"] };
    const tools = new Map([["crm__lookup", lookup()]]);
    const graph = graphs.graphOf(mcp, tools);
    expect(graphs.graphOf(mcp, new Map(tools))).toBe(graph);
    expect(graphs.graphOf(mcp, new Map([["crm__lookup", lookup()]]))).not.toBe(graph);

    models.register("graphs-test", () => new ScriptedChatModel());
    const own = graphs.graphOf({ ...assistant, model: { provider: "graphs-test" } });
    expect(graphs.graphOf({ ...assistant, model: { provider: "graphs-test" } })).toBe(own);
    models.register("graphs-test", () => new ScriptedChatModel());
    expect(graphs.graphOf({ ...assistant, model: { provider: "graphs-test" } })).not.toBe(own);
  });

  it("keeps at most its limit, dropping the least recently used", () => {
    const graphs = new AssistantGraphs(new MemorySaver(), [], DEFAULT_UPSTREAM_POLICY, registries(), 2);
    const first = graphs.graphOf({ ...assistant, systemPrompt: "1" });
    const second = graphs.graphOf({ ...assistant, systemPrompt: "2" });
    expect(graphs.graphOf({ ...assistant, systemPrompt: "1" })).toBe(first);
    graphs.graphOf({ ...assistant, systemPrompt: "3" });
    expect(graphs.graphOf({ ...assistant, systemPrompt: "1" })).toBe(first);
    expect(graphs.graphOf({ ...assistant, systemPrompt: "2" })).not.toBe(second);
  });
});
