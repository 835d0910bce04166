import { ANY_ASSISTANT } from "@axiom-lattice/protocols";
import { HumanMessage } from "@langchain/core/messages";
import { FakeOpenAi } from "@axiom-lattice/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ModelProviderRegistry } from "../src";
import { operatorKeyFor } from "../src/models/operatorKey";
import { ASSISTANT, collect, manager, sharedStores, shutdownManagers, thread, tokens } from "./support";

const api = new FakeOpenAi();
let baseUrl: string;

beforeAll(async () => {
  baseUrl = await api.start();
});
afterAll(() => api.stop());
afterEach(() => shutdownManagers());

describe("OpenAI-compatible provider", () => {
  it("talks to the configured base URL with the key and model of the assistant's config", async () => {
    const model = new ModelProviderRegistry().createChatModel({ provider: "openai", baseUrl, apiKey: "sk-local", model: "fake-model", temperature: 0 });
    const reply = await model.invoke([new HumanMessage("hi")]);
    expect(reply.text).toBe("Hello from the fake API: hi");
    expect(api.requests.at(-1)).toMatchObject({ authorization: "Bearer sk-local", body: { model: "fake-model" } });
  });

  it("sends the registry's own key to OpenAI's API only: a base URL a config names gets none", async () => {
    const registry = new ModelProviderRegistry({ openAiApiKey: "sk-runtime" });
    const before = api.requests.length;
    expect(() => registry.createChatModel({ provider: "openai", baseUrl, model: "fake-model" })).toThrow(/No API key.*OpenAI's API only/);
    expect(api.requests.length).toBe(before);
    expect(operatorKeyFor(undefined, "sk-runtime")).toBe("sk-runtime");
    expect(operatorKeyFor("https://api.openai.com/v1", "sk-runtime")).toBe("sk-runtime");
    for (const elsewhere of [baseUrl, "https://api.openai.com.example.net/v1", "http://api.openai.com/v1", "not a url"]) {
      expect(operatorKeyFor(elsewhere, "sk-runtime")).toBeUndefined();
    }
  });

  it("runs an assistant: streamed tokens, a tool round trip, the final answer", async () => {
    const stores = await sharedStores({ model: { provider: "openai", baseUrl, apiKey: "sk-local", model: "fake-model" }, tools: ["clock"] });
    const agent = manager(stores).getAgent(thread("openai-thread"));

    const { stream } = await agent.addMessage({ message: "what time?" }, { mode: "stream" });
    const chunks = await collect(stream);

    expect(chunks.map((chunk) => chunk.type)).toContain("tool_call");
    expect(chunks.find((chunk) => chunk.type === "tool_call")?.data).toMatchObject({ name: "clock" });
    expect(chunks.find((chunk) => chunk.type === "tool_result")?.data).toMatchObject({ name: "clock", content: expect.stringMatching(/^\d{4}-/) });
    expect(tokens(chunks).length).toBeGreaterThan(2);
    expect(tokens(chunks).join("")).toMatch(/^The time is \d{4}-/);
    expect(chunks.at(-1)).toMatchObject({ type: "message_completed", data: { status: "success" } });

    const sent = api.requests.slice(-2).map((request) => request.body);
    expect(sent.every((body) => body.stream === true && body.model === "fake-model")).toBe(true);
    expect(sent[0].tools?.map((tool) => tool.function.name)).toEqual(["clock", "ask_human"]);
    expect(sent[1].messages.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("streams the answer from the API for a run that streams no tokens to anyone (LangGraph values only)", async () => {
    const stores = await sharedStores({ model: { provider: "openai", baseUrl, apiKey: "sk-local", model: "fake-model" } });
    const agent = manager(stores).getAgent({ ...thread("openai-values"), assistantId: ANY_ASSISTANT });
    const sentBefore = api.requests.length;

    const { completion } = await agent.addMessage({ input: { messages: [{ role: "user", content: "hi" }] } }, { mode: "wait", assistantId: ASSISTANT, streamModes: ["values"] });
    const result = await completion;

    expect(result).toMatchObject({ status: "success", messages: [expect.anything(), expect.objectContaining({ content: "Hello from the fake API: hi" })] });
    expect(api.requests.slice(sentBefore).map((request) => request.body.stream)).toEqual([true]);
  });
});
