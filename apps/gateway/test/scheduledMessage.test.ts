import { describe, expect, it } from "vitest";
import { eventually } from "@axiom-lattice/testing";
import { useGateway } from "./support";

describe("a scheduled agent message (default runtime, in-memory stores)", () => {
  const { post, get, del } = useGateway(async ({ post }) => {
    await post("/api/assistants", { id: "morning", name: "Morning" });
    await post("/api/threads", { thread_id: "daily", assistant_id: "morning" });
  });

  it("fires once and the assistant answers on the thread", async () => {
    const created = await post("/api/schedules", {
      task_type: "agent-message",
      delay_ms: 50,
      payload: { assistant_id: "morning", thread_id: "daily", message: "good morning" },
    });
    expect(created.statusCode).toBe(201);

    const deadline = Date.now() + 10_000;
    let runs: Array<{ message_id: string; status: string }> = [];
    while (Date.now() < deadline) {
      runs = (await get("/api/threads/daily/runs")).json<{ runs: typeof runs }>().runs;
      if (runs.length && runs.every((run) => run.status === "success")) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: "success", message_id: expect.stringMatching(/^schedule\./) });
    const state = (await get("/api/threads/daily/state")).json<{ messages: Array<{ content: string }> }>();
    expect(state.messages.map((message) => message.content)).toEqual(["good morning", "echo: good morning"]);
  });

  // A fire is its message's run: it fails when the message cannot be delivered or its run fails, is
  // retried per the schedule's policy, and the schedule shows the error.
  const settledSchedule = async (taskId: string) =>
    eventually(
      "the schedule to settle",
      async () => !["pending", "running"].includes((await get(`/api/schedules/${taskId}`)).json<{ status: string }>().status),
      { timeoutMs: 10_000 },
    ).then(async () => (await get(`/api/schedules/${taskId}`)).json<Record<string, unknown>>());

  const expectFailedAfterRetry = async (created: { statusCode: number; json<T>(): T }, error: string) => {
    expect(created.statusCode).toBe(201);
    expect(await settledSchedule(created.json<{ id: string }>().id)).toMatchObject({
      status: "failed",
      run_count: 0,
      retry_count: 1,
      last_error: error,
    });
  };

  it("fails a fire for an assistant deleted since it was scheduled: retried per policy, then failed with last_error", async () => {
    await post("/api/assistants", { id: "ghost", name: "Ghost" });
    const created = await post("/api/schedules", {
      task_type: "agent-message",
      delay_ms: 300,
      max_retries: 1,
      payload: { assistant_id: "ghost", thread_id: "daily", message: "hello?" },
    });
    expect((await del("/api/assistants/ghost")).statusCode).toBe(204);
    await expectFailedAfterRetry(created, "Assistant ghost not found");
  });

  it("fails a fire for a thread that does not exist: retried per policy, then failed with last_error", async () => {
    const created = await post("/api/schedules", {
      task_type: "agent-message",
      delay_ms: 0,
      max_retries: 1,
      payload: { assistant_id: "morning", thread_id: "nowhere", message: "hello?" },
    });
    await expectFailedAfterRetry(created, "Thread nowhere not found for assistant morning");
  });

  it("fails a fire whose run fails, with the run's error", async () => {
    await post("/api/threads", { thread_id: "failing", assistant_id: "morning" });
    const created = await post("/api/schedules", {
      task_type: "agent-message",
      delay_ms: 0,
      max_retries: 0,
      payload: { assistant_id: "morning", thread_id: "failing", message: "/fail the model is down" },
    });
    const schedule = await settledSchedule(created.json<{ id: string }>().id);
    expect(schedule).toMatchObject({ status: "failed", run_count: 0, last_error: expect.stringContaining("ended error") });
    expect(schedule.last_error).toContain("the model is down");
  });

  it("counts a fire as run only once its message's run succeeded", async () => {
    const created = await post("/api/schedules", {
      task_type: "agent-message",
      delay_ms: 0,
      payload: { assistant_id: "morning", thread_id: "daily", message: "/sleep 300" },
    });
    const taskId = created.json<{ id: string }>().id;
    await eventually("the fire to start", async () => (await get(`/api/schedules/${taskId}`)).json<{ status: string }>().status === "running");
    expect(await settledSchedule(taskId)).toMatchObject({ status: "completed", run_count: 1 });
    const runs = (await get("/api/threads/daily/runs")).json<{ runs: Array<{ message_id: string; status: string }> }>().runs;
    expect(runs.find((run) => run.message_id.startsWith(`schedule.${taskId}.`))).toMatchObject({ status: "success" });
  });
});
