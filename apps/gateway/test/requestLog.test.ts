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
});
