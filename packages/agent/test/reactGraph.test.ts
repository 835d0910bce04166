import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ModelProviderRegistry, ToolRegistry, UnknownToolError, buildAssistantGraph, checkpointThreadId } from "../src";

const registries = () => ({ models: new ModelProviderRegistry(), tools: new ToolRegistry() });
const config = (threadId: string) => ({ configurable: { thread_id: threadId } });

describe("assistant ReAct graph", () => {
  it("runs a tool and answers with its result", async () => {
    const graph = buildAssistantGraph({ model: { provider: "scripted" }, tools: ["clock", "echo"] }, new MemorySaver(), registries());
    const state = await graph.invoke({ messages: [new HumanMessage("/tool clock {}")] }, config("t"));
    const answer = state.messages.at(-1)!.text;
    expect(answer).toMatch(/^clock returned: \d{4}-\d\d-\d\dT/);
    expect(state.messages.map((message) => message.type)).toEqual(["human", "ai", "tool", "ai"]);
  });

  it("interrupts on ask_human and continues with the resume value", async () => {
    const graph = buildAssistantGraph({ model: { provider: "scripted" }, tools: [] }, new MemorySaver(), registries());
    await graph.invoke({ messages: [new HumanMessage("/interrupt Your name?")] }, config("t"));
    const paused = await graph.getState(config("t"));
    expect(paused.tasks.flatMap((task) => task.interrupts.map((interrupt) => interrupt.value))).toEqual(["Your name?"]);

    const resumed = await graph.invoke(new Command({ resume: "Ada" }), config("t"));
    expect(resumed.messages.at(-1)!.text).toBe("ask_human returned: Ada");
  });

  it("keeps a system prompt out of the checkpointed messages", async () => {
    const graph = buildAssistantGraph({ model: { provider: "scripted" }, tools: [], systemPrompt: "Be brief." }, new MemorySaver(), registries());
    const state = await graph.invoke({ messages: [new HumanMessage("hi")] }, config("t"));
    expect(state.messages.map((message) => message.text)).toEqual(["hi", "echo: hi"]);
  });

  it("resolves an assistant's tools from its tenant's tools too, and only from those it is given", async () => {
    const sum = tool(({ a, b }) => String(a + b), { name: "calc__add", description: "Adds.", schema: z.object({ a: z.number(), b: z.number() }) });
    const graph = buildAssistantGraph({ model: { provider: "scripted" }, tools: ["echo", "calc__add"] }, new MemorySaver(), registries(), [], undefined, new Map([[sum.name, sum]]));
    const state = await graph.invoke({ messages: [new HumanMessage('/tool calc__add {"a":2,"b":3}')] }, config("t"));
    expect(state.messages.at(-1)!.text).toBe("calc__add returned: 5");
    expect(() => buildAssistantGraph({ model: { provider: "scripted" }, tools: ["calc__add"] }, new MemorySaver(), registries(), [], undefined, new Map())).toThrow(UnknownToolError);
  });

  it("refuses an assistant that names an unregistered tool", () => {
    expect(() => buildAssistantGraph({ model: { provider: "scripted" }, tools: ["teleport"] }, new MemorySaver(), registries())).toThrow(UnknownToolError);
  });

  it("namespaces checkpoint threads by tenant", () => {
    expect(checkpointThreadId({ tenantId: "a", threadId: "t" })).not.toBe(checkpointThreadId({ tenantId: "b", threadId: "t" }));
    // A separator inside an id cannot forge another tenant's key.
    expect(checkpointThreadId({ tenantId: "a:b", threadId: "c" })).not.toBe(checkpointThreadId({ tenantId: "a", threadId: "b:c" }));
  });
});
