import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeChatRequest {
  model: string;
  stream?: boolean;
  messages: Array<{ role: string; content: string | null }>;
  tools?: Array<{ function: { name: string } }>;
}

/**
 * How the fake API answers, chosen by the request's `model`: `fail-401` (quoting the key's first
 * three and last four characters, as OpenAI does) and `fail-429` answer that status, `garbage` a body that is not JSON, `wrong-shape` JSON that is no chat completion, `silent`
 * never answers; `rate-limited-once` answers its first request 429 with `Retry-After: 3`, then normally;
 * any other model answers normally.
 */
export const FAKE_OPENAI_FAILURES = ["fail-401", "fail-429", "garbage", "wrong-shape", "silent", "rate-limited-once"] as const;

/** The `Retry-After` (seconds) of `rate-limited-once`: longer than LangChain's first back-off (1-2 s), so a retry waiting for it shows. */
export const FAKE_RETRY_AFTER_S = 3;

/** What the fake API answers: a tool call to `clock` when asked for the time, else text. */
function answerFor(request: FakeChatRequest): { content?: string; toolCall?: { name: string; arguments: string } } {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { content: `The time is ${last.content}` };
  if (String(last.content).includes("time?")) return { toolCall: { name: "clock", arguments: "{}" } };
  return { content: `Hello from the fake API: ${last.content}` };
}

/** A local OpenAI chat-completions endpoint (streaming SSE and plain JSON) on a free port, and its model list (`GET /v1/models`). */
export class FakeOpenAi {
  /** Completion requests, with when each arrived (epoch milliseconds). */
  readonly requests: Array<{ authorization?: string; body: FakeChatRequest; at: number }> = [];
  /** The models `GET /v1/models` lists (it answers any model's completions). */
  models: string[] = ["fake-model"];
  private server!: Server;
  private readonly silent = new Set<ServerResponse>();

  /** Listens; resolves to the base URL (`http://127.0.0.1:<port>/v1`). */
  async start(): Promise<string> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Requests for `model` received so far. */
  requestsFor(model: string): number {
    return this.requests.filter((request) => request.body.model === model).length;
  }

  stop(): Promise<void> {
    for (const response of this.silent) response.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let raw = "";
    for await (const part of request) raw += part;
    if (request.method === "GET" && request.url === "/v1/models") {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: this.models.map((id) => ({ id, object: "model", owned_by: "fake" })) }));
      return;
    }
    if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
      response.writeHead(404).end();
      return;
    }
    const body = JSON.parse(raw) as FakeChatRequest;
    this.requests.push({ authorization: request.headers.authorization, body, at: Date.now() });
    if (this.fail(body.model, response, request.headers.authorization)) return;
    const answer = answerFor(body);
    const toolCalls = answer.toolCall && [{ index: 0, id: "call_fake_1", type: "function", function: answer.toolCall }];
    const finishReason = toolCalls ? "tool_calls" : "stop";
    // A new id for every completion, as the real API gives: LangGraph keys the thread's messages by it.
    const base = { id: `chatcmpl-fake-${this.requests.length}`, created: 0, model: body.model };
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

  /** Answers a failing model's request; false for a model that answers normally. */
  private fail(model: string, response: ServerResponse, authorization = ""): boolean {
    const error = (status: number, message: string) =>
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: { message, type: "fake_error" } }));
    switch (model) {
      case "fail-401": {
        // As OpenAI words it: the refused key, its first and last characters shown.
        const key = authorization.replace(/^Bearer /, "");
        error(401, `Incorrect API key provided: ${key.slice(0, 3)}${"*".repeat(Math.max(key.length - 7, 0))}${key.slice(-4)}.`);
        return true;
      }
      case "fail-429":
        error(429, "Rate limit reached");
        return true;
      case "rate-limited-once":
        if (this.requestsFor(model) > 1) return false;
        response.writeHead(429, { "content-type": "application/json", "retry-after": String(FAKE_RETRY_AFTER_S) });
        response.end(JSON.stringify({ error: { message: "Rate limit reached", type: "fake_error" } }));
        return true;
      case "garbage":
        response.writeHead(200, { "content-type": "application/json" }).end("<html>definitely not JSON");
        return true;
      case "wrong-shape":
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ hello: "world" }));
        return true;
      case "silent":
        this.silent.add(response);
        response.on("close", () => this.silent.delete(response));
        return true;
      default:
        return false;
    }
  }
}

/** A base URL on which nothing listens: a port taken from the system and released again. */
export async function closedPortBaseUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/v1`;
}
