import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HumanMessage } from "@langchain/core/messages";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createChatModel } from "../src";
import { collect, manager, sharedStores, shutdownManagers, thread, tokens } from "./support";

interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: Array<{ role: string; content: string | null }>;
  tools?: Array<{ function: { name: string } }>;
}

/** What the fake API answers: a tool call to `clock` when asked for the time, else text. */
function answerFor(request: ChatRequest): { content?: string; toolCall?: { name: string; arguments: string } } {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { content: `The time is ${last.content}` };
  if (String(last.content).includes("time?")) return { toolCall: { name: "clock", arguments: "{}" } };
  return { content: `Hello from the fake API: ${last.content}` };
}

/** A local OpenAI chat-completions endpoint (streaming SSE and plain JSON). */
class FakeOpenAi {
  readonly requests: Array<{ authorization?: string; body: ChatRequest }> = [];
  private server!: Server;

  async start(): Promise<string> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let raw = "";
    for await (const part of request) raw += part;
    if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
      response.writeHead(404).end();
      return;
    }
    const body = JSON.parse(raw) as ChatRequest;
    this.requests.push({ authorization: request.headers.authorization, body });
    const answer = answerFor(body);
    const toolCalls = answer.toolCall && [{ index: 0, id: "call_fake_1", type: "function", function: answer.toolCall }];
    const finishReason = toolCalls ? "tool_calls" : "stop";
    const base = { id: "chatcmpl-fake", created: 0, model: body.model };
    if (!body.stream) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          ...base,
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant", content: answer.content ?? null, tool_calls: toolCalls }, finish_reason: finishReason }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream" });
    const send = (delta: object, finish: string | null = null) =>
      response.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    send({ role: "assistant", content: "" });
    if (toolCalls) send({ tool_calls: toolCalls });
    for (const token of answer.content?.match(/\s*\S+/g) ?? []) send({ content: token });
    send({}, finishReason);
    response.end("data: [DONE]\n\n");
  }
}

const api = new FakeOpenAi();
let baseUrl: string;

beforeAll(async () => {
  baseUrl = await api.start();
});
afterAll(() => api.stop());
afterEach(() => shutdownManagers());

describe("OpenAI-compatible provider", () => {
  it("talks to the configured base URL with the key and model of the assistant's config", async () => {
    const model = createChatModel({ provider: "openai", baseUrl, apiKey: "sk-local", model: "fake-model", temperature: 0 });
    const reply = await model.invoke([new HumanMessage("hi")]);
    expect(reply.text).toBe("Hello from the fake API: hi");
    expect(api.requests.at(-1)).toMatchObject({ authorization: "Bearer sk-local", body: { model: "fake-model" } });
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
});
