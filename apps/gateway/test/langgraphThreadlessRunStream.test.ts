import { describe, expect, it } from "vitest";
import { sseEvents as events } from "./langgraphSse";
import { useGateway } from "./support";

// `GET /runs/{run_id}/stream`: a run followed by its id alone, as the SDK's `joinStream(null, runId)`
// follows a stateless run; served by the same join stream as a thread's runs.
const ASSISTANT = "lg-threadless";
const headers = { "x-tenant-id": "lg-threadless-runs" };
const gateway = useGateway(async ({ post }) => {
  expect((await post("/assistants", { assistant_id: ASSISTANT, graph_id: "react" }, headers)).statusCode).toBe(200);
});
const say = (content: string, extra: Record<string, unknown> = {}) => ({ assistant_id: ASSISTANT, input: { messages: [{ role: "user", content }] }, ...extra });
const join = (runId: string, extra: Record<string, string> = {}, query = "") =>
  gateway.app.inject({ method: "GET", url: `/runs/${runId}/stream${query}`, headers: { ...headers, ...extra } });

describe("LangGraph API: a run's stream by its id alone", () => {
  it("follows a stateless run as its thread's join stream does: from the start, after Last-Event-ID, a subset of modes", async () => {
    const created = await gateway.post("/runs", say("/drip 20 one two three", { stream_mode: ["values", "updates"], on_completion: "keep" }), headers);
    const { run_id: runId, thread_id: threadId } = created.json<{ run_id: string; thread_id: string }>();

    const joined = await join(runId);
    expect(joined.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(joined.headers["content-location"]).toBe(`/runs/${runId}`);
    expect(joined.headers.location).toBe(`/runs/${runId}/stream`);
    const streamed = events(joined);
    expect(streamed.map((event) => event.event)).toEqual(["metadata", "values", "updates", "values"]);
    expect(streamed[0].data).toEqual({ run_id: runId, attempt: 1 });
    // The same events as the thread's own join stream gives.
    expect(streamed).toEqual(events(await gateway.get(`/threads/${threadId}/runs/${runId}/stream`, headers)));

    expect(events(await join(runId, { "last-event-id": streamed[1].id! })).map((event) => event.id)).toEqual([streamed[2].id, streamed[3].id]);
    expect(events(await join(runId, {}, "?stream_mode=updates")).map((event) => event.event)).toEqual(["metadata", "updates"]);
  });

  it("answers 404 for an unknown run, another tenant's, and a stateless run deleted with its thread", async () => {
    const kept = (await gateway.post("/runs", say("mine", { on_completion: "keep" }), headers)).json<{ run_id: string }>().run_id;
    for (const answer of [await join("no-such-run"), await gateway.app.inject({ method: "GET", url: `/runs/${kept}/stream`, headers: { "x-tenant-id": "lg-threadless-stranger" } })]) {
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toEqual({ detail: expect.stringMatching(/^Run \S+ not found$/), code: "NOT_FOUND" });
    }
    const gone = (await gateway.post("/runs", say("brief"), headers)).json<{ run_id: string }>().run_id;
    await expect.poll(async () => (await join(gone)).statusCode, { timeout: 10_000 }).toBe(404);
  });
});
