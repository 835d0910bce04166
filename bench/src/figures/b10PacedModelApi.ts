// The model of B10, in a process of its own: an OpenAI chat-completions endpoint that streams
// B10_TOKENS tokens, one every B10_TOKEN_INTERVAL_MS, as a model answering over a few seconds does.
// The built-in scripted model answers at once, which a relay lag figure cannot use.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

const tokens = Number(process.env.B10_TOKENS);
const intervalMs = Number(process.env.B10_TOKEN_INTERVAL_MS);

const server = createServer((request, response) => {
  void (async () => {
    let body = "";
    for await (const part of request) body += part;
    if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
      response.writeHead(404).end();
      return;
    }
    const { model, stream } = JSON.parse(body) as { model: string; stream?: boolean };
    if (!stream) {
      response.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "B10's model only streams" } }));
      return;
    }
    const base = { id: `chatcmpl-b10-${Date.now()}-${Math.random()}`, object: "chat.completion.chunk", created: 0, model };
    const send = (delta: object, finishReason: string | null = null) =>
      response.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`);
    response.writeHead(200, { "content-type": "text/event-stream" });
    send({ role: "assistant", content: "" });
    // On an absolute schedule: a late tick does not push every later token back.
    const startedAt = performance.now();
    for (let i = 0; i < tokens && !response.destroyed; i += 1) {
      await sleep(Math.max(0, startedAt + i * intervalMs - performance.now()));
      send({ content: ` w${i}` });
    }
    send({}, "stop");
    response.end("data: [DONE]\n\n");
  })();
});

server.listen(0, "127.0.0.1", () => {
  process.on("SIGTERM", () => server.close());
  process.stdout.write(`B10 model API ready at http://127.0.0.1:${(server.address() as AddressInfo).port}/v1\n`);
});
