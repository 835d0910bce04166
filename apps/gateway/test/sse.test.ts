import Fastify from "fastify";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSseStream } from "../src/http/sse";

describe("SSE framing", () => {
  const app = Fastify();
  let url = "";
  let releaseQuiet = () => {};
  const quietReleased = new Promise<void>((resolve) => (releaseQuiet = resolve));

  beforeAll(async () => {
    app.get("/events", async (_request, reply) => {
      reply.header("x-kept", "yes");
      // Quiet until two heartbeats went out, however late a loaded machine runs the timers.
      let written = "";
      const write = reply.raw.write.bind(reply.raw);
      reply.raw.write = ((chunk: string, ...rest: never[]) => {
        written += String(chunk);
        return write(chunk, ...rest);
      }) as typeof reply.raw.write;
      const sse = openSseStream(reply, { heartbeatMs: 20 });
      sse.send("m1:0", { type: "message_chunk", data: "a" });
      while ((written.match(/^: heartbeat$/gm)?.length ?? 0) < 2) await sleep(10);
      sse.send(undefined, { type: "affinity_miss", data: {} });
      sse.end();
    });
    app.get("/quiet", async (_request, reply) => {
      const sse = openSseStream(reply);
      await quietReleased;
      sse.send("m2:0", { type: "message_chunk", data: "late" });
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

  it("answers 200 with its headers at once, before the first event (a client sees the run was accepted)", async () => {
    let released = false;
    const release = setTimeout(() => {
      released = true;
      releaseQuiet();
    }, 1_500);
    const response = await fetch(`${url}/quiet`);
    expect(response.status).toBe(200);
    expect(released).toBe(false);
    clearTimeout(release);
    releaseQuiet();
    expect(await response.text()).toBe('id: m2:0\ndata: {"type":"message_chunk","data":"late"}\n\n');
  });
});
