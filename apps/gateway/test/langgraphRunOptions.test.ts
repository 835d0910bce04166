import type { LightMyRequestResponse } from "fastify";
import { describe, expect, it } from "vitest";
import { useGateway } from "./support";

// What a LangGraph run may ask beyond its input: the stream modes events, debug, tasks and
// checkpoints, pausing before or after nodes, a recursion limit, running from an earlier checkpoint,
// and the graph's settings for one run. Every answer is checked against the OpenAPI document; the
// SDK-driven cases are in e2e/harness/langgraphRunOptionsCases.ts.
const ASSISTANT = "lg-options";
const headers = { "x-tenant-id": "lg-options" };
const gateway = useGateway(async ({ post }) => {
  expect((await post("/assistants", { assistant_id: ASSISTANT, graph_id: "react", context: { tools: ["echo"] } }, headers)).statusCode).toBe(200);
});

const post = (url: string, body: unknown) => gateway.post(url, body, headers);
const get = (url: string) => gateway.get(url, headers);
const say = (content: string, extra: Record<string, unknown> = {}) => ({ assistant_id: ASSISTANT, input: { messages: [{ role: "user", content }] }, ...extra });
const newThread = async () => (await post("/threads", {})).json<{ thread_id: string }>().thread_id;

/** The events of a LangGraph stream: `event: <name>` lines, as the SDK reads them. */
function events(response: LightMyRequestResponse): Array<{ event: string; id?: string; data: unknown }> {
  return response.body
    .split("\n\n")
    .filter((block) => block.includes("event: "))
    .map((block) => {
      const field = (name: string) => block.split("\n").find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
      return { event: field("event")!, id: field("id"), data: JSON.parse(field("data") ?? "null") };
    });
}

describe("LangGraph API: stream modes events, debug, tasks, checkpoints", () => {
  it("streams each mode's events from the run's output, and a join stream follows a subset of them", async () => {
    const thread = await newThread();
    const answer = await post(`/threads/${thread}/runs/stream`, say("hi", { stream_mode: ["events", "debug", "tasks", "checkpoints"] }));
    expect(answer.statusCode).toBe(200);
    const streamed = events(answer);
    const runId = (streamed[0].data as { run_id: string }).run_id;
    const names = new Set(streamed.map((event) => event.event));
    expect([...names].sort()).toEqual(["checkpoints", "debug", "end", "events", "metadata", "tasks"]);
    const first = streamed.find((event) => event.event === "events")!.data;
    expect(first).toMatchObject({ event: "on_chain_start", name: "LangGraph", run_id: runId, tags: [], metadata: { thread_id: thread } });
    const lastCheckpoint = streamed.filter((event) => event.event === "checkpoints").at(-1)!.data;
    expect(lastCheckpoint).toMatchObject({ next: [], checkpoint: { thread_id: thread, checkpoint_ns: "" }, values: { messages: [{ content: "hi" }, { content: "echo: hi" }] } });
    // The checkpoint streamed last is the thread's state.
    const state = (await get(`/threads/${thread}/state`)).json();
    expect((lastCheckpoint as { checkpoint: unknown }).checkpoint).toEqual(state.checkpoint);

    const joined = events(await get(`/threads/${thread}/runs/${runId}/stream?stream_mode=tasks`));
    expect(joined.map((event) => event.event)).toEqual(["metadata", "tasks", "tasks", "end"]);
    expect(joined.slice(1, 3).map((event) => event.id)).toEqual(streamed.filter((event) => event.event === "tasks").map((event) => event.id));
  });
});
