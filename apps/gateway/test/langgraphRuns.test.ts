import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ANY_ASSISTANT } from "@axiom-lattice/protocols";
import { describe, expect, it } from "vitest";
import { gatewayContextOf } from "../src/context/gatewayContext";
import { RUN_OWN_THREAD_TTL_MINUTES } from "../src/defaults";
import { sseEvents as events } from "./langgraphSse";
import { useGateway } from "./support";

// The LangGraph API's threads, state and runs through HTTP, every answer checked against the OpenAPI
// document. The SDK-driven suite (e2e/scenarios/24-langgraph-sdk.test.ts) drives the same routes
// through @langchain/langgraph-sdk, on one gateway and on replicas; this file pins shapes and refusals.
const ASSISTANT = "lg-runner";
const headers = { "x-tenant-id": "lg-runs" };
const gateway = useGateway(async ({ post }) => {
  expect((await post("/assistants", { assistant_id: ASSISTANT, graph_id: "react", context: { tools: ["echo"] } }, headers)).statusCode).toBe(200);
});

const post = (url: string, body: unknown) => gateway.post(url, body, headers);
/** A POST without a body, as the SDK sends a cancel. */
const postEmpty = (url: string) => gateway.app.inject({ method: "POST", url, headers });
const get = (url: string) => gateway.get(url, headers);
const say = (content: string, extra: Record<string, unknown> = {}) => ({ assistant_id: ASSISTANT, input: { messages: [{ role: "user", content }] }, ...extra });
const newThread = async (metadata: Record<string, unknown> = {}) => (await post("/threads", { metadata })).json<{ thread_id: string }>().thread_id;

describe("LangGraph API: threads", () => {
  it("creates threads that belong to no assistant, honours if_exists, and patches and deletes them", async () => {
    const created = await post("/threads", { thread_id: "lg-t1", metadata: { user: "ann" } });
    expect(created.json()).toMatchObject({ thread_id: "lg-t1", status: "idle", metadata: { user: "ann" }, values: {}, interrupts: {} });
    const again = await post("/threads", { thread_id: "lg-t1" });
    expect([again.statusCode, again.json().code]).toEqual([409, "ALREADY_EXISTS"]);
    expect((await post("/threads", { thread_id: "lg-t1", if_exists: "do_nothing" })).json()).toMatchObject({ metadata: { user: "ann" } });
    // In the /api dialect it is a thread of no assistant.
    expect((await get("/api/threads/lg-t1")).json()).toMatchObject({ assistant_id: ANY_ASSISTANT });

    const patched = await gateway.app.inject({ method: "PATCH", url: "/threads/lg-t1", headers: { ...headers, "content-type": "application/json" }, payload: { metadata: { plan: "pro" } } });
    expect(patched.json().metadata).toEqual({ user: "ann", plan: "pro" });
    expect((await gateway.del("/threads/lg-t1", headers)).statusCode).toBe(204);
    expect((await get("/threads/lg-t1")).json()).toEqual({ detail: "Thread lg-t1 not found", code: "NOT_FOUND" });
  });

  it("searches by metadata, ids, status and values, sorted, with a selection of fields", async () => {
    const [a, b, c] = [await newThread({ app: "search", n: 1 }), await newThread({ app: "search", n: 2 }), await newThread({ app: "search", n: 3 })];
    await post(`/threads/${b}/runs/wait`, say("/interrupt ready?"));
    await post(`/threads/${c}/runs/wait`, say("hello"));
    const ids = async (body: Record<string, unknown>) => (await post("/threads/search", { metadata: { app: "search" }, ...body })).json().map((thread: { thread_id: string }) => thread.thread_id);

    expect(await ids({})).toEqual([c, b, a]);
    expect(await ids({ sort_order: "asc", limit: 2 })).toEqual([a, b]);
    expect(await ids({ ids: [a, c] })).toEqual([c, a]);
    expect(await ids({ status: "interrupted" })).toEqual([b]);
    expect(await ids({ status: "idle", offset: 1 })).toEqual([a]);
    expect(await ids({ values: { messages: [{ content: "echo: hello" }] } })).toEqual([c]);
    // A run labels its thread with its assistant and graph, which clients search by.
    expect(await ids({ metadata: { app: "search", assistant_id: ASSISTANT, graph_id: "react" } })).toEqual([c, b]);
    const selected = (await post("/threads/search", { ids: [b], select: ["thread_id", "status"] })).json();
    expect(selected).toEqual([{ thread_id: b, status: "interrupted" }]);
  });

  it("searches and counts busy threads: those with a run queued, newest first, as many as the limit asks", async () => {
    const [idle, older, newer] = [await newThread({ app: "busy" }), await newThread({ app: "busy" }), await newThread({ app: "busy" })];
    await post(`/threads/${idle}/runs/wait`, say("hello"));
    for (const thread of [older, newer]) expect((await post(`/threads/${thread}/runs`, say("later", { after_seconds: 3600 }))).statusCode).toBe(200);
    const search = async (body: Record<string, unknown>) => (await post("/threads/search", { metadata: { app: "busy" }, ...body })).json<Array<{ thread_id: string; status: string }>>();

    expect((await search({ status: "busy" })).map((thread) => [thread.thread_id, thread.status])).toEqual([[newer, "busy"], [older, "busy"]]);
    expect((await search({ status: "busy", limit: 1 })).map((thread) => thread.thread_id)).toEqual([newer]);
    expect((await search({ status: "busy", offset: 1 })).map((thread) => thread.thread_id)).toEqual([older]);
    expect((await search({ status: "idle" })).map((thread) => thread.thread_id)).toEqual([idle]);
    expect((await post("/threads/count", { metadata: { app: "busy" }, status: "busy" })).json()).toBe(2);
  });

  it("reads its state and history, and writes values between runs", async () => {
    const thread = await newThread();
    expect((await get(`/threads/${thread}/state`)).json()).toMatchObject({ values: {}, next: [], tasks: [], checkpoint: { thread_id: thread, checkpoint_id: null } });
    await post(`/threads/${thread}/runs/wait`, say("first"));
    const state = (await get(`/threads/${thread}/state`)).json();
    expect(state).toMatchObject({ next: [], metadata: { source: "loop", thread_id: thread }, checkpoint: { thread_id: thread, checkpoint_ns: "" }, parent_checkpoint: { thread_id: thread } });
    expect(state.values.messages.map((message: { type: string; content: string }) => [message.type, message.content])).toEqual([["human", "first"], ["ai", "echo: first"]]);
    expect(state.values).not.toHaveProperty("runStarts");

    const written = await post(`/threads/${thread}/state`, { values: { messages: [{ role: "user", content: "added" }] }, as_node: "agent" });
    const checkpoint = { thread_id: thread, checkpoint_ns: "", checkpoint_id: expect.any(String) };
    expect(written.json()).toEqual({ checkpoint, configurable: checkpoint });
    const history = (await post(`/threads/${thread}/history`, { limit: 2 })).json();
    expect(history.map((entry: { checkpoint: { checkpoint_id: string } }) => entry.checkpoint.checkpoint_id)[0]).toBe(written.json().checkpoint.checkpoint_id);
    expect(history[0].values.messages.at(-1)).toMatchObject({ type: "human", content: "added" });
    const older = (await post(`/threads/${thread}/history`, { limit: 1, before: { configurable: { checkpoint_id: history[0].checkpoint.checkpoint_id } } })).json();
    expect(older[0].checkpoint.checkpoint_id).toBe(history[1].checkpoint.checkpoint_id);
  });

  it("refuses what it does not do, and bad input, with 422 and nothing written", async () => {
    const thread = await newThread();
    for (const [url, body, code] of [
      ["/threads", { ttl: { ttl: 60, strategy: "keep_latest" } }, "NOT_SUPPORTED"],
      ["/threads", { supersteps: [{ updates: [{ values: { messages: [] }, as_node: "agent", command: { resume: "yes" } }] }] }, "NOT_SUPPORTED"],
      ["/threads", { thread_id: "bad id" }, "INVALID_REQUEST"],
      ["/threads/search", { sort_by: "status" }, "INVALID_REQUEST"],
      [`/threads/${thread}/state`, { values: { runStarts: [] } }, "INVALID_REQUEST"],
      [`/threads/${thread}/state`, { values: { messages: [{ role: "nobody", content: "x" }] } }, "INVALID_REQUEST"],
    ] as const) {
      const answer = await post(url, body);
      expect([answer.statusCode, answer.json().code], `${url} ${JSON.stringify(body)}`).toEqual([422, code]);
    }
    // The ReAct graph has no subgraphs: a namespace names nothing.
    for (const [url, body] of [
      [`/threads/${thread}/state`, { values: { messages: [] }, checkpoint: { checkpoint_id: "c1", checkpoint_ns: "sub" } }],
      [`/threads/${thread}/history`, { checkpoint: { checkpoint_ns: "sub" } }],
    ] as const) {
      const answer = await post(url, body);
      expect([answer.statusCode, answer.json().code], `${url} ${JSON.stringify(body)}`).toEqual([404, "NOT_FOUND"]);
    }
    expect((await get(`/threads/${thread}/state`)).json().values).toEqual({});
  });
});

describe("LangGraph API: runs", () => {
  it("streams a run: metadata first, then the modes asked for with resumable ids; locates the run", async () => {
    const thread = await newThread();
    const answer = await post(`/threads/${thread}/runs/stream`, say("hi there", { stream_mode: ["values", "updates", "messages-tuple", "custom"] }));
    expect(answer.headers["content-type"]).toMatch(/^text\/event-stream/);
    const streamed = events(answer);
    const runId = (streamed[0].data as { run_id: string }).run_id;
    expect(streamed[0]).toEqual({ event: "metadata", id: "0", data: { run_id: runId, attempt: 1 } });
    expect(answer.headers["content-location"]).toBe(`/threads/${thread}/runs/${runId}`);
    expect(answer.headers.location).toBe(`/threads/${thread}/runs/${runId}/stream`);
    expect(streamed.map((event) => event.event)).toEqual(["metadata", "values", "messages", "messages", "messages", "updates", "values"]);
    // Ids count the run's events from the metadata's 0, as the platform's do.
    expect(streamed.map((event) => event.id)).toEqual(streamed.map((_, index) => String(index)));
    expect(streamed[2].data).toEqual([expect.objectContaining({ type: "ai", content: "echo:" }), expect.objectContaining({ langgraph_node: "agent", thread_id: thread, run_id: runId })]);

    // The run again, from after its first token, as a reconnecting client asks (Last-Event-ID): nothing twice.
    const resumed = await gateway.app.inject({ method: "GET", url: `/threads/${thread}/runs/${runId}/stream`, headers: { ...headers, "last-event-id": streamed[2].id! } });
    expect(events(resumed).map((event) => event.id)).toEqual(streamed.slice(3).map((event) => event.id));
    // An id as streams sent them before (`<run_id>:<index>`) resumes at the same place.
    const resumedOldId = await gateway.app.inject({ method: "GET", url: `/threads/${thread}/runs/${runId}/stream`, headers: { ...headers, "last-event-id": `${runId}:${Number(streamed[2].id) - 1}` } });
    expect(events(resumedOldId)).toEqual(events(resumed));
    const onlyUpdates = await gateway.app.inject({ method: "GET", url: `/threads/${thread}/runs/${runId}/stream?stream_mode=updates`, headers: { ...headers, "last-event-id": streamed[1].id! } });
    expect(events(onlyUpdates).map((event) => event.event)).toEqual(["updates"]);
    const joined = await get(`/threads/${thread}/runs/${runId}/stream?stream_mode=${encodeURIComponent('["values","updates"]')}`);
    expect(events(joined).map((event) => event.event)).toEqual(["metadata", "values", "updates", "values"]);
    // -1: every event from the start, as LangGraph Platform reads it (useStream rejoins a run so).
    const fromStart = await gateway.app.inject({ method: "GET", url: `/threads/${thread}/runs/${runId}/stream`, headers: { ...headers, "last-event-id": "-1" } });
    expect(events(fromStart)).toEqual(streamed);
  });

  it("waits, joins and lists runs with LangGraph's statuses; a paused run succeeded and its thread is interrupted", async () => {
    const thread = await newThread();
    const asked = await post(`/threads/${thread}/runs/wait`, say("/interrupt which colour?"));
    expect(asked.json().__interrupt__).toEqual([{ id: expect.any(String), value: "which colour?" }]);
    const thread1 = (await get(`/threads/${thread}`)).json();
    expect(thread1).toMatchObject({ status: "interrupted", interrupts: expect.any(Object) });
    expect(Object.values(thread1.interrupts)).toEqual([[{ id: expect.any(String), value: "which colour?" }]]);

    const answered = await post(`/threads/${thread}/runs/wait`, { assistant_id: ASSISTANT, command: { resume: "blue" } });
    expect(answered.json().messages.at(-1)).toMatchObject({ type: "ai", content: "ask_human returned: blue" });
    const failed = await post(`/threads/${thread}/runs/wait`, say("/fail out of ideas"));
    expect(failed.json()).toEqual({ __error__: { error: "Error", message: "out of ideas" } });
    expect((await get(`/threads/${thread}`)).json()).toMatchObject({ status: "error", error: "out of ideas" });

    const runs = (await get(`/threads/${thread}/runs`)).json();
    expect(runs.map((run: { status: string }) => run.status)).toEqual(["error", "success", "success"]);
    expect(runs[2]).toMatchObject({ thread_id: thread, assistant_id: ASSISTANT, multitask_strategy: "reject", kwargs: { input: { messages: [{ role: "user", content: "/interrupt which colour?" }] }, stream_mode: ["values"] } });
    expect((await get(`/threads/${thread}/runs?status=error&select=${encodeURIComponent('["run_id","status"]')}`)).json()).toEqual([{ run_id: runs[0].run_id, status: "error" }]);
    expect((await get(`/threads/${thread}/runs/${runs[1].run_id}`)).json()).toMatchObject({ run_id: runs[1].run_id, kwargs: { command: { resume: "blue" } } });
    // Join answers the thread's values now: after the failed run too.
    expect((await get(`/threads/${thread}/runs/${runs[1].run_id}/join`)).json().messages).toHaveLength(5);
  });

  it("queues in the background, refuses a busy thread under reject, queues under enqueue, and cancels runs", async () => {
    const thread = await newThread();
    const background = await post(`/threads/${thread}/runs`, say("/sleep 400", { metadata: { source: "test" } }));
    const run = background.json();
    expect(run).toMatchObject({ status: "pending", thread_id: thread, metadata: { source: "test" } });
    expect(background.headers["content-location"]).toBe(`/threads/${thread}/runs/${run.run_id}`);

    const busy = await post(`/threads/${thread}/runs`, say("second"));
    expect(busy.statusCode).toBe(409);
    expect(busy.json()).toEqual({ detail: "Thread is already running a task. Wait for it to finish or choose a different multitask strategy.", code: "THREAD_BUSY" });
    const queued = (await post(`/threads/${thread}/runs`, say("second", { multitask_strategy: "enqueue" }))).json();
    expect((await get(`/threads/${thread}`)).json().status).toBe("busy");
    expect((await get(`/threads/${thread}/runs/${queued.run_id}/join`)).json().messages.at(-1)).toMatchObject({ content: "echo: second" });

    const long = (await post(`/threads/${thread}/runs`, say("/sleep 5000"))).json();
    const behind = (await post(`/threads/${thread}/runs`, say("never", { multitask_strategy: "enqueue" }))).json();
    expect((await postEmpty(`/threads/${thread}/runs/${behind.run_id}/cancel`)).statusCode).toBe(202);
    expect((await get(`/threads/${thread}/runs/${behind.run_id}`)).json().status).toBe("interrupted");
    await expect.poll(async () => (await get(`/threads/${thread}/runs/${long.run_id}`)).json().status).toBe("running");
    const cancelled = await postEmpty(`/threads/${thread}/runs/${long.run_id}/cancel?wait=1`);
    expect(cancelled.statusCode).toBe(204);
    expect((await get(`/threads/${thread}/runs/${long.run_id}`)).json().status).toBe("interrupted");
    // Cancelling a run that ended leaves it as it is.
    expect((await postEmpty(`/threads/${thread}/runs/${run.run_id}/cancel`)).statusCode).toBe(202);
  });

  it("under interrupt, stops the run in progress and runs the new one", async () => {
    const thread = await newThread();
    const first = (await post(`/threads/${thread}/runs`, say("/sleep 5000"))).json();
    await expect.poll(async () => (await get(`/threads/${thread}/runs/${first.run_id}`)).json().status).toBe("running");
    const next = await post(`/threads/${thread}/runs/wait`, say("instead", { multitask_strategy: "interrupt" }));
    expect(next.json().messages.at(-1)).toMatchObject({ content: "echo: instead" });
    expect((await get(`/threads/${thread}/runs/${first.run_id}`)).json().status).toBe("interrupted");
  });

  it("creates the thread under if_not_exists: create, and runs statelessly on a thread of its own, deleted afterwards", async () => {
    const created = await post("/threads/lg-made-by-run/runs/wait", say("hello", { if_not_exists: "create" }));
    expect(created.statusCode).toBe(200);
    expect((await get("/threads/lg-made-by-run")).json()).toMatchObject({ status: "idle", metadata: { assistant_id: ASSISTANT } });
    expect((await post("/threads/lg-missing/runs/wait", say("hello"))).json()).toEqual({ detail: "Thread lg-missing not found", code: "NOT_FOUND" });

    const streamed = events(await post("/runs/stream", say("alone", { stream_mode: "updates" })));
    expect(streamed.map((event) => event.event)).toEqual(["metadata", "updates"]);
    const { thread_id: ownThread } = streamed[0].data as { thread_id: string };
    await expect.poll(async () => (await get(`/threads/${ownThread}`)).statusCode, { timeout: 10_000 }).toBe(404);
    const waited = await post("/runs/wait", say("alone again", { on_completion: "keep" }));
    expect(waited.json().messages.map((message: { content: string }) => message.content)).toEqual(["alone again", "echo: alone again"]);
  });

  it("gives a stateless run's own thread a TTL, so that the expiry sweep deletes it should the replica that was to die first; none when kept", async () => {
    const { threads } = gatewayContextOf(gateway.app).stores;
    const ttlOf = async (extra: Record<string, unknown>) => {
      const run = (await post("/runs", say("/sleep 300", extra))).json<{ thread_id: string; run_id: string }>();
      const { ttlMinutes } = (await threads.getThread(headers["x-tenant-id"], run.thread_id))!;
      await get(`/threads/${run.thread_id}/runs/${run.run_id}/join`);
      return ttlMinutes;
    };
    expect(await ttlOf({})).toBe(RUN_OWN_THREAD_TTL_MINUTES);
    expect(await ttlOf({ on_completion: "keep" })).toBeUndefined();
  });

  it("refuses what it does not do, and bad input, with 422, queueing nothing", async () => {
    const thread = await newThread();
    const refusals: Array<[Record<string, unknown>, string]> = [
      [say("x", { stream_mode: ["values", "tools"] }), "NOT_SUPPORTED"],
      [{ assistant_id: ASSISTANT, command: { goto: "planner" } }, "INVALID_REQUEST"],
      [{ assistant_id: ASSISTANT, command: {} }, "INVALID_REQUEST"],
      [{ assistant_id: ASSISTANT }, "INVALID_REQUEST"],
      [{ assistant_id: ASSISTANT, input: { messages: [{ role: "wizard", content: "x" }] } }, "INVALID_REQUEST"],
      [{ assistant_id: ASSISTANT, input: { messages: [], topic: "x" } }, "INVALID_REQUEST"],
      [{ assistant_id: ASSISTANT, command: { update: { topic: "x" } } }, "INVALID_REQUEST"],
      [{ ...say("x"), command: { resume: 1 } }, "INVALID_REQUEST"],
      [{ ...say("x"), surprise: 1 }, "INVALID_REQUEST"],
    ];
    for (const [body, code] of refusals) {
      const answer = await post(`/threads/${thread}/runs`, body);
      expect([answer.statusCode, answer.json().code], `${JSON.stringify(body)}: ${answer.body}`).toEqual([422, code]);
    }
    const unknownAssistant = await post(`/threads/${thread}/runs`, { ...say("x"), assistant_id: "nobody" });
    expect([unknownAssistant.statusCode, unknownAssistant.json().code]).toEqual([404, "NOT_FOUND"]);
    expect((await get(`/threads/${thread}/runs`)).json()).toEqual([]);
    expect((await get(`/threads/${thread}/runs/no-such-run`)).statusCode).toBe(404);
  });

  it("streams a failure as an error event before the end", async () => {
    const thread = await newThread();
    const streamed = events(await post(`/threads/${thread}/runs/stream`, say("/fail broke", { stream_mode: "updates" })));
    expect(streamed.map((event) => event.event)).toEqual(["metadata", "error"]);
    expect(streamed[1].data).toEqual({ error: "Error", message: "broke" });
  });
});

describe("LangGraph API: webhooks", () => {
  /** A local HTTP receiver (authentication is off, so the egress policy lets loopback through). */
  async function receiver() {
    const received: Array<Record<string, unknown>> = [];
    const server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it("POSTs the run, the thread's values and its error to the webhook once it ended; a URL the egress policy refuses is refused when written", async () => {
    const hook = await receiver();
    try {
      const thread = await newThread();
      const waited = await post(`/threads/${thread}/runs/wait`, say("hooked", { webhook: hook.url, metadata: { source: "test" } }));
      expect(waited.statusCode).toBe(200);
      await expect.poll(() => hook.received.length).toBe(1);
      const [sent] = hook.received;
      expect(sent).toMatchObject({ thread_id: thread, assistant_id: ASSISTANT, status: "success", metadata: { source: "test" }, kwargs: { input: { messages: [{ role: "user", content: "hooked" }] } } });
      expect((sent.values as { messages: Array<{ content: string }> }).messages.map((message) => message.content)).toEqual(["hooked", "echo: hooked"]);
      expect(Date.parse(sent.webhook_sent_at as string)).toBeGreaterThanOrEqual(Date.parse(sent.run_started_at as string));
      const [run] = (await get(`/threads/${thread}/runs`)).json<Array<{ run_id: string }>>();
      expect(sent.run_id).toBe(run.run_id);

      await post(`/threads/${thread}/runs/wait`, say("/fail broke", { webhook: hook.url }));
      await expect.poll(() => hook.received.length).toBe(2);
      expect(hook.received[1]).toMatchObject({ status: "error", error: "broke" });
      // A run without a webhook calls none.
      await post(`/threads/${thread}/runs/wait`, say("quiet"));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(hook.received).toHaveLength(2);

      const refused = await post(`/threads/${thread}/runs`, say("x", { webhook: "ftp://127.0.0.1/hook" }));
      expect([refused.statusCode, refused.json().code]).toEqual([400, "INVALID_BASE_URL"]);
      expect((await get(`/threads/${thread}/runs`)).json()).toHaveLength(3);
    } finally {
      await hook.close();
    }
  });
});
