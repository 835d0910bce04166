import { describe, expect, it } from "vitest";
import { sseEvents as events } from "./langgraphSse";
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

describe("LangGraph API: stream modes events, debug, tasks, checkpoints", () => {
  it("streams each mode's events from the run's output, and a join stream follows a subset of them", async () => {
    const thread = await newThread();
    const answer = await post(`/threads/${thread}/runs/stream`, say("hi", { stream_mode: ["events", "debug", "tasks", "checkpoints"] }));
    expect(answer.statusCode).toBe(200);
    const streamed = events(answer);
    const runId = (streamed[0].data as { run_id: string }).run_id;
    const names = new Set(streamed.map((event) => event.event));
    expect([...names].sort()).toEqual(["checkpoints", "debug", "events", "metadata", "tasks"]);
    const first = streamed.find((event) => event.event === "events")!.data;
    expect(first).toMatchObject({ event: "on_chain_start", name: "LangGraph", run_id: runId, tags: [], metadata: { thread_id: thread } });
    const lastCheckpoint = streamed.filter((event) => event.event === "checkpoints").at(-1)!.data;
    expect(lastCheckpoint).toMatchObject({ next: [], checkpoint: { thread_id: thread, checkpoint_ns: "" }, values: { messages: [{ content: "hi" }, { content: "echo: hi" }] } });
    // The checkpoint streamed last is the thread's state.
    const state = (await get(`/threads/${thread}/state`)).json();
    expect((lastCheckpoint as { checkpoint: unknown }).checkpoint).toEqual(state.checkpoint);

    const joined = events(await get(`/threads/${thread}/runs/${runId}/stream?stream_mode=tasks`));
    expect(joined.map((event) => event.event)).toEqual(["metadata", "tasks", "tasks"]);
    expect(joined.slice(1, 3).map((event) => event.id)).toEqual(streamed.filter((event) => event.event === "tasks").map((event) => event.id));
  });
});

describe("LangGraph API: interrupt_before and interrupt_after", () => {
  it("pauses the run before or after the nodes named: its thread is interrupted, and a run with input null goes on", async () => {
    const thread = await newThread();
    const paused = await post(`/threads/${thread}/runs/wait`, say('/tool echo {"text":"ping"}', { interrupt_before: ["tools"] }));
    expect(paused.statusCode).toBe(200);
    expect((await get(`/threads/${thread}`)).json()).toMatchObject({ status: "interrupted" });
    expect((await get(`/threads/${thread}/state`)).json()).toMatchObject({ next: ["tools"] });
    const [run] = (await get(`/threads/${thread}/runs`)).json();
    // Its kwargs list what it was created with, the pause's nodes included, as the platform's do.
    expect(run).toMatchObject({ status: "success", kwargs: { interrupt_before: ["tools"], interrupt_after: null, webhook: null, stream_mode: ["values"] } });

    const resumed = await post(`/threads/${thread}/runs/wait`, { assistant_id: ASSISTANT, input: null, interrupt_after: "*" });
    expect(resumed.statusCode).toBe(200);
    const [resumedRun] = (await get(`/threads/${thread}/runs`)).json();
    expect(resumedRun.kwargs).toMatchObject({ input: null, command: null, interrupt_before: null, interrupt_after: "*" });
    expect((await get(`/threads/${thread}/state`)).json()).toMatchObject({ next: ["agent"] });
    const done = await post(`/threads/${thread}/runs/wait`, { assistant_id: ASSISTANT, input: null });
    expect(done.json().messages.map((message: { content: string }) => message.content)).toEqual(['/tool echo {"text":"ping"}', "", "ping", "echo returned: ping"]);
    expect((await get(`/threads/${thread}`)).json()).toMatchObject({ status: "idle" });
  });
});

describe("LangGraph API: recursion_limit", () => {
  it("fails a run beyond its config.recursion_limit with a stable code", async () => {
    const thread = await newThread();
    const streamed = events(await post(`/threads/${thread}/runs/stream`, say('/tool echo {"text":"loop"}', { config: { recursion_limit: 2 }, stream_mode: "updates" })));
    expect(streamed.at(-1)).toMatchObject({ event: "error", data: { error: "GRAPH_RECURSION_LIMIT", message: "GRAPH_RECURSION_LIMIT: Recursion limit of 2 reached without hitting a stop condition" } });
    expect((await get(`/threads/${thread}`)).json()).toMatchObject({ status: "error" });
  });
});

describe("LangGraph API: running and updating from an earlier checkpoint", () => {
  it("forks the thread from the checkpoint a run or a state update names, and reads the state at a checkpoint", async () => {
    const thread = await newThread();
    await post(`/threads/${thread}/runs/wait`, say("first"));
    const { checkpoint } = (await get(`/threads/${thread}/state`)).json();
    await post(`/threads/${thread}/runs/wait`, say("second"));

    const forked = await post(`/threads/${thread}/runs/wait`, say("instead", { checkpoint_id: checkpoint.checkpoint_id }));
    expect(forked.json().messages.map((message: { content: string }) => message.content)).toEqual(["first", "echo: first", "instead", "echo: instead"]);
    // The checkpoint it started from is in its kwargs' config, as the platform shows it, beside the caller's headers.
    const [forkRun] = (await get(`/threads/${thread}/runs`)).json();
    expect(forkRun.kwargs.config).toEqual({ configurable: { checkpoint_id: checkpoint.checkpoint_id, "user-agent": "lightMyRequest" } });
    const atCheckpoint = (await get(`/threads/${thread}/state/${checkpoint.checkpoint_id}`)).json();
    expect(atCheckpoint).toMatchObject({ checkpoint, values: { messages: [{ content: "first" }, { content: "echo: first" }] } });

    const written = (await post(`/threads/${thread}/state`, { values: { messages: [{ role: "user", content: "edited" }] }, checkpoint })).json();
    const state = (await get(`/threads/${thread}/state`)).json();
    expect(state.checkpoint.checkpoint_id).toBe(written.checkpoint.checkpoint_id);
    expect(state.values.messages.map((message: { content: string }) => message.content)).toEqual(["first", "echo: first", "edited"]);

    for (const answer of [
      await post(`/threads/${thread}/runs`, say("x", { checkpoint_id: "no-such-checkpoint" })),
      await post(`/threads/${thread}/state`, { values: { messages: [] }, checkpoint_id: "no-such-checkpoint" }),
      await get(`/threads/${thread}/state/no-such-checkpoint`),
    ]) {
      expect([answer.statusCode, answer.json().code]).toEqual([404, "NOT_FOUND"]);
    }
    expect((await get(`/threads/${thread}/runs`)).json()).toHaveLength(3);
  });
});

describe("LangGraph API: a run's own graph settings", () => {
  it("uses the context's (or config.configurable's) model, tools and system_prompt for that run only, checked as an assistant's", async () => {
    const thread = await newThread();
    const streamed = events(await post(`/threads/${thread}/runs/stream`, say("hi", { context: { system_prompt: "Be terse." }, stream_mode: "events" })));
    const start = streamed.find((event) => (event.data as { event?: string }).event === "on_chat_model_start")!.data as { data: { input: { messages: Array<Array<{ type: string; content: string }>> } } };
    expect(start.data.input.messages[0][0]).toMatchObject({ type: "system", content: "Be terse." });

    const withoutEcho = await post(`/threads/${thread}/runs/wait`, say('/tool echo {"text":"ping"}', { config: { configurable: { tools: ["clock"] } } }));
    const toolAnswer = withoutEcho.json().messages.find((message: { type: string }) => message.type === "tool");
    expect(toolAnswer.content).not.toBe("ping");
    const withEcho = await post(`/threads/${thread}/runs/wait`, say('/tool echo {"text":"pong"}'));
    expect(withEcho.json().messages.find((message: { type: string; content: string }) => message.type === "tool" && message.content === "pong")).toBeDefined();

    const refusals: Array<[Record<string, unknown>, number, string]> = [
      [say("x", { context: { tools: ["no-such-tool"] } }), 400, "UNKNOWN_TOOL"],
      [say("x", { config: { configurable: { model: { provider: "nowhere" } } } }), 400, "UNKNOWN_MODEL_PROVIDER"],
      [say("x", { context: { model: { provider: "scripted", apiKey: "sk-1" } } }), 422, "NOT_SUPPORTED"],
      [say("x", { context: { system_prompt: 7 } }), 422, "INVALID_REQUEST"],
      [say("x", { interrupt_before: ["planner"] }), 422, "INVALID_REQUEST"],
      [say("x", { config: { recursion_limit: 0 } }), 422, "INVALID_REQUEST"],
    ];
    for (const [body, status, code] of refusals) {
      const answer = await post(`/threads/${thread}/runs`, body);
      expect([answer.statusCode, answer.json().code], JSON.stringify(body)).toEqual([status, code]);
    }
    expect((await get(`/threads/${thread}/runs`)).json()).toHaveLength(3);
  });
});
