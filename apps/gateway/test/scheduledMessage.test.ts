import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGateway, loadConfig } from "../src";

describe("a scheduled agent message (default runtime, in-memory stores)", () => {
  let app: FastifyInstance;
  const post = (url: string, payload: object) =>
    app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });

  beforeAll(async () => {
    app = await buildGateway(loadConfig({ LOG_LEVEL: "silent" }));
    await post("/api/assistants", { id: "morning", name: "Morning" });
    await post("/api/threads", { thread_id: "daily", assistant_id: "morning" });
  });
  afterAll(() => app.close());

  it("fires once and the assistant answers on the thread", async () => {
    const created = await post("/api/schedules", {
      taskType: "agent-message",
      delayMs: 50,
      payload: { assistantId: "morning", threadId: "daily", message: "good morning" },
    });
    expect(created.statusCode).toBe(201);

    const deadline = Date.now() + 10_000;
    let runs: Array<{ messageId: string; status: string }> = [];
    while (Date.now() < deadline) {
      runs = (await app.inject({ method: "GET", url: "/api/threads/daily/runs" })).json<{ runs: typeof runs }>().runs;
      if (runs.length && runs.every((run) => run.status === "success")) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: "success", messageId: expect.stringMatching(/^schedule\./) });
    const state = (await app.inject({ method: "GET", url: "/api/threads/daily/state" })).json<{ messages: Array<{ content: string }> }>();
    expect(state.messages.map((message) => message.content)).toEqual(["good morning", "echo: good morning"]);
  });
});
