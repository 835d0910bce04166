// Every run a replica finishes leaves a line in its log, from the gateway: one no request waits on
// (queued, a LangGraph background run, a schedule's fire) included. A failed run's line is the runtime's at warn.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGateway, loadConfig } from "../src";
import { capturedLog } from "./logCapture";

describe("the log of finished runs", () => {
  const { logger, lines } = capturedLog();
  let app: Awaited<ReturnType<typeof buildGateway>>;
  const post = (url: string, payload: unknown) => app.inject({ method: "POST", url, payload: payload as object });
  beforeAll(async () => {
    app = await buildGateway(loadConfig({}), { logger });
    expect((await post("/api/assistants", { id: "echo", name: "Echo" })).statusCode).toBe(201);
    for (const threadId of ["queued", "failing", "scheduled"]) expect((await post("/api/threads", { thread_id: threadId, assistant_id: "echo" })).statusCode).toBe(201);
  });
  afterAll(async () => {
    await app?.close();
  });

  /** The lines about the run of `messageId`. */
  const linesOf = (messageId: string) => lines.filter((line) => line.messageId === messageId && typeof line.msg === "string" && line.msg.startsWith("run "));

  it("logs a queued run's success once at info, with its message, thread, tenant, assistant, status and time", async () => {
    const queued = await post("/api/runs", { assistant_id: "echo", thread_id: "queued", message: "later", mode: "queue" });
    expect(queued.statusCode).toBe(202);
    const { message_id: messageId } = queued.json() as { message_id: string };
    await expect.poll(() => linesOf(messageId)).toHaveLength(1);
    expect(linesOf(messageId)[0]).toMatchObject({
      level: 30,
      msg: "run finished",
      messageId,
      threadId: "queued",
      tenantId: "default",
      assistantId: "echo",
      status: "success",
      durationMs: expect.any(Number),
    });
  });

  it("logs a LangGraph background run's end", async () => {
    const created = await post("/threads/background/runs", { assistant_id: "echo", input: { messages: [{ role: "user", content: "hi" }] }, if_not_exists: "create" });
    expect(created.statusCode).toBe(200);
    const { run_id: runId } = created.json() as { run_id: string };
    await expect.poll(() => linesOf(runId)).toMatchObject([{ level: 30, msg: "run finished", threadId: "background", status: "success" }]);
  });

  it("logs a schedule's fire", async () => {
    const created = await post("/api/schedules", { task_type: "agent-message", delay_ms: 50, payload: { assistant_id: "echo", thread_id: "scheduled", message: "good morning" } });
    expect(created.statusCode).toBe(201);
    await expect
      .poll(() => lines.filter((line) => line.msg === "run finished" && line.threadId === "scheduled"))
      .toMatchObject([{ level: 30, messageId: expect.stringMatching(/^schedule\./), status: "success" }]);
  });

  it("logs a failed run once, at warn with its reason and time, and not at info", async () => {
    const queued = await post("/api/runs", { assistant_id: "echo", thread_id: "failing", message: "/fail the model is down", mode: "queue" });
    const { message_id: messageId } = queued.json() as { message_id: string };
    await expect.poll(async () => (await app.inject({ method: "GET", url: "/api/threads/failing/runs" })).json()).toMatchObject({ runs: [{ status: "error" }] });
    expect(linesOf(messageId)).toMatchObject([
      { level: 40, msg: "run failed", threadId: "failing", error: expect.stringContaining("the model is down"), durationMs: expect.any(Number) },
    ]);
  });
});
