import Fastify from "fastify";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSseStream } from "../src/http/sse";

describe("SSE framing", () => {
  const app = Fastify();
  let url = "";

  beforeAll(async () => {
    app.get("/events", async (_request, reply) => {
      reply.header("x-kept", "yes");
      const sse = openSseStream(reply, { heartbeatMs: 20 });
      sse.send("m1:0", { type: "message_chunk", data: "a" });
      await sleep(120);
      sse.send(undefined, { type: "affinity_miss", data: {} });
      sse.end();
    });
    url = await app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(() => app.close());

  it("frames events with ids, keeps headers set before it and sends heartbeat comments while quiet", async () => {
    const response = await fetch(`${url}/events`);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.headers.get("x-kept")).toBe("yes");
    const body = await response.text();
    expect(body.startsWith('id: m1:0\ndata: {"type":"message_chunk","data":"a"}\n\n')).toBe(true);
    expect(body.match(/^: heartbeat$/gm)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(body.endsWith('data: {"type":"affinity_miss","data":{}}\n\n')).toBe(true);
  });
});
