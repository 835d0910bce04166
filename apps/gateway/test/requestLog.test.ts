import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGateway, loadConfig } from "../src";
import { capturedLog } from "./logCapture";

describe("the request log", () => {
  const { logger, lines } = capturedLog();
  let app: Awaited<ReturnType<typeof buildGateway>>;
  beforeAll(async () => {
    app = await buildGateway(loadConfig({}), { logger });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("writes one info line per request: method, path, route, status and time", async () => {
    lines.length = 0;
    await app.inject({ method: "GET", url: "/health" });
    await app.inject({ method: "GET", url: "/api/threads/nope/runs?limit=5" });
    await app.inject({ method: "POST", url: "/api/threads", payload: { thread_id: 5 } });
    await app.inject({ method: "GET", url: "/no/such/route" });
    const requestLines = lines.filter((line) => line.reqId !== undefined);
    expect(requestLines.map((line) => line.msg)).toEqual([
      expect.stringMatching(/^GET \/health 200 [\d.]+ ms$/),
      expect.stringMatching(/^GET \/api\/threads\/nope\/runs 404 [\d.]+ ms$/),
      expect.stringMatching(/^POST \/api\/threads 400 [\d.]+ ms$/),
      expect.stringMatching(/^GET \/no\/such\/route 404 [\d.]+ ms$/),
    ]);
    expect(requestLines[1]).toMatchObject({ level: 30, method: "GET", path: "/api/threads/nope/runs", route: "/api/threads/:id/runs", status: 404 });
    expect(requestLines[3]).toMatchObject({ route: "unmatched" });
    for (const line of requestLines) expect(line.ms).toEqual(expect.any(Number));
  });

  it("logs a stream at its end, not its first byte, with the events and bytes it wrote", async () => {
    expect((await app.inject({ method: "POST", url: "/api/assistants", payload: { id: "echo", name: "Echo" } })).statusCode).toBe(201);
    expect((await app.inject({ method: "POST", url: "/api/threads", payload: { thread_id: "streamed", assistant_id: "echo" } })).statusCode).toBe(201);
    lines.length = 0;
    const streamed = await app.inject({ method: "POST", url: "/api/runs", payload: { assistant_id: "echo", thread_id: "streamed", message: "/drip 100 three slow words", mode: "stream" } });
    expect(streamed.statusCode).toBe(200);
    const events = streamed.body.split("\n\n").filter((event) => event.startsWith("id: ")).length;
    expect(events).toBeGreaterThan(1);
    const streamLines = lines.filter((each) => each.reqId !== undefined && each.path === "/api/runs");
    expect(streamLines).toHaveLength(1);
    const [line] = streamLines;
    expect(line).toMatchObject({ status: 200, events, bytes: Buffer.byteLength(streamed.body) });
    expect(line).not.toHaveProperty("cut");
    // Words 100 ms apart: the line is written after them.
    expect(line.ms).toBeGreaterThanOrEqual(300);
    expect(line.msg).toMatch(new RegExp(`^POST /api/runs 200 [\\d.]+ ms \\(${events} events, ${Buffer.byteLength(streamed.body)} bytes\\)$`));
  });

  it("logs a stream the client left before its end, with what it wrote until then", async () => {
    expect((await app.inject({ method: "POST", url: "/api/threads", payload: { thread_id: "left", assistant_id: "echo" } })).statusCode).toBe(201);
    const address = await app.listen({ port: 0, host: "127.0.0.1" });
    lines.length = 0;
    const streaming = request(`${address}/api/runs`, { method: "POST", headers: { "content-type": "application/json" } });
    streaming.end(JSON.stringify({ assistant_id: "echo", thread_id: "left", message: "/drip 200 words far too slow to wait for", mode: "stream" }));
    // The first event read, the client goes.
    const firstEvent = await new Promise<string>((resolve) => streaming.on("response", (response) => response.once("data", (data: Buffer) => resolve(data.toString()))));
    expect(firstEvent).toContain("data: ");
    streaming.destroy();
    await expect.poll(() => lines.filter((each) => each.path === "/api/runs")).toHaveLength(1);
    const [line] = lines.filter((each) => each.path === "/api/runs");
    expect(line).toMatchObject({ level: 30, status: 200, cut: true, events: expect.any(Number), bytes: expect.any(Number) });
    expect(line.events).toBeGreaterThanOrEqual(1);
    expect(line.msg).toMatch(/^POST \/api\/runs 200 [\d.]+ ms \(\d+ events, \d+ bytes, cut before its end\)$/);
  });
});
