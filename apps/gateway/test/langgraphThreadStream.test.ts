import { describe, expect, it } from "vitest";
import { useGateway } from "./support";

// GET /threads/{id}/stream, the SDK's threads.joinStream: what it refuses before any event (the SDK
// cases in e2e/harness/langgraphCronCases.ts follow runs through it, in memory and on replicas).
const headers = { "x-tenant-id": "lg-thread-stream" };
const gateway = useGateway(async ({ post }) => {
  expect((await post("/assistants", { assistant_id: "streamer", graph_id: "react" }, headers)).statusCode).toBe(200);
});

describe("LangGraph API: a thread's stream", () => {
  it("answers 404 for a missing or another tenant's thread, and 422 for a Last-Event-ID of another thread's run", async () => {
    const thread = (await gateway.post("/threads", {}, headers)).json().thread_id;
    const other = (await gateway.post("/threads", {}, headers)).json().thread_id;
    const run = await gateway.post(`/threads/${other}/runs/wait`, { assistant_id: "streamer", input: { messages: [{ role: "user", content: "hi" }] } }, headers);
    const runId = String(run.headers["content-location"]).split("/").at(-1);

    expect((await gateway.get(`/threads/${thread}/stream`, { "x-tenant-id": "lg-thread-stream-other" })).json()).toEqual({ detail: `Thread ${thread} not found`, code: "NOT_FOUND" });
    expect((await gateway.get("/threads/missing/stream", headers)).statusCode).toBe(404);
    const foreignRun = await gateway.get(`/threads/${thread}/stream`, { ...headers, "last-event-id": `${runId}:1` });
    expect([foreignRun.statusCode, foreignRun.json().code]).toEqual([422, "INVALID_REQUEST"]);
  });
});
