import { describe, expect, it } from "vitest";
import { useGateway } from "./support";

describe("a scheduled agent message (default runtime, in-memory stores)", () => {
  const { post, get } = useGateway(async ({ post }) => {
    await post("/api/assistants", { id: "morning", name: "Morning" });
    await post("/api/threads", { thread_id: "daily", assistant_id: "morning" });
  });

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
      runs = (await get("/api/threads/daily/runs")).json<{ runs: typeof runs }>().runs;
      if (runs.length && runs.every((run) => run.status === "success")) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: "success", messageId: expect.stringMatching(/^schedule\./) });
    const state = (await get("/api/threads/daily/state")).json<{ messages: Array<{ content: string }> }>();
    expect(state.messages.map((message) => message.content)).toEqual(["good morning", "echo: good morning"]);
  });
});
