import { describe, expect, it } from "vitest";
import { useGateway } from "./support";

// The LangGraph API's run deletion and rollback through HTTP, every answer checked against the OpenAPI
// document (the SDK drives the same through e2e/harness/langgraphRunControlCases.ts, on replicas too).
const ASSISTANT = "lg-control";
const headers = { "x-tenant-id": "lg-control" };
const gateway = useGateway(async ({ post }) => {
  expect((await post("/assistants", { assistant_id: ASSISTANT, graph_id: "react", context: { tools: ["echo"] } }, headers)).statusCode).toBe(200);
});

const post = (url: string, body: unknown) => gateway.post(url, body, headers);
const postEmpty = (url: string) => gateway.app.inject({ method: "POST", url, headers });
const get = (url: string) => gateway.get(url, headers);
const del = (url: string) => gateway.del(url, headers);
const say = (content: string, extra: Record<string, unknown> = {}) => ({ assistant_id: ASSISTANT, input: { messages: [{ role: "user", content }] }, ...extra });
const newThread = async () => (await post("/threads", {})).json<{ thread_id: string }>().thread_id;
const contents = async (thread: string) =>
  ((await get(`/threads/${thread}/state`)).json().values.messages ?? []).map((message: { content: string }) => message.content);
const runStatus = async (thread: string, run: string) => (await get(`/threads/${thread}/runs/${run}`)).json().status;

describe("LangGraph API: run deletion", () => {
  it("deletes an ended run and a queued one (which never runs); refuses one in progress with 409", async () => {
    const thread = await newThread();
    const ended = (await post(`/threads/${thread}/runs`, say("first"))).json();
    await get(`/threads/${thread}/runs/${ended.run_id}/join`);

    const running = (await post(`/threads/${thread}/runs`, say("/sleep 5000"))).json();
    const queued = (await post(`/threads/${thread}/runs`, say("never", { multitask_strategy: "enqueue" }))).json();
    await expect.poll(() => runStatus(thread, running.run_id)).toBe("running");

    const refused = await del(`/threads/${thread}/runs/${running.run_id}`);
    expect([refused.statusCode, refused.json()]).toEqual([409, { detail: `Run ${running.run_id} is in progress: cancel it before deleting it`, code: "RUN_IN_PROGRESS" }]);
    for (const run of [ended.run_id, queued.run_id]) {
      const deleted = await del(`/threads/${thread}/runs/${run}`);
      expect([deleted.statusCode, deleted.body]).toEqual([204, ""]);
      expect((await get(`/threads/${thread}/runs/${run}`)).json()).toEqual({ detail: `Run ${run} not found on thread ${thread}`, code: "NOT_FOUND" });
    }
    expect((await get(`/threads/${thread}/runs`)).json().map((run: { run_id: string }) => run.run_id)).toEqual([running.run_id]);
    // The thread's state stays as the deleted run left it.
    expect(await contents(thread)).toEqual(["first", "echo: first", "/sleep 5000"]);

    expect((await postEmpty(`/threads/${thread}/runs/${running.run_id}/cancel?wait=1`)).statusCode).toBe(204);
    expect((await del(`/threads/${thread}/runs/${running.run_id}`)).statusCode).toBe(204);
    expect((await get(`/threads/${thread}/runs`)).json()).toEqual([]);
    expect(await contents(thread)).not.toContain("never");

    const missing = await del(`/threads/${thread}/runs/${ended.run_id}`);
    expect([missing.statusCode, missing.json().code]).toEqual([404, "NOT_FOUND"]);
    expect((await del(`/threads/no-such-thread/runs/${ended.run_id}`)).json()).toEqual({ detail: "Thread no-such-thread not found", code: "NOT_FOUND" });
  });
});

describe("LangGraph API: rollback", () => {
  it("multitask_strategy rollback stops the run in progress, deletes it and the queued ones, then runs the new one", async () => {
    const thread = await newThread();
    const first = (await post(`/threads/${thread}/runs`, say("/sleep 5000"))).json();
    const queued = (await post(`/threads/${thread}/runs`, say("never", { multitask_strategy: "enqueue" }))).json();
    await expect.poll(() => runStatus(thread, first.run_id)).toBe("running");
    const instead = await post(`/threads/${thread}/runs/wait`, say("instead", { multitask_strategy: "rollback" }));
    expect(instead.json().messages.at(-1)).toMatchObject({ content: "echo: instead" });
    const runs = (await get(`/threads/${thread}/runs`)).json();
    expect(runs).toMatchObject([{ status: "success", multitask_strategy: "rollback" }]);
    for (const run of [first.run_id, queued.run_id]) expect((await get(`/threads/${thread}/runs/${run}`)).statusCode).toBe(404);
    // The stopped run's checkpoints stay: what it had added is still in the thread's messages.
    expect(await contents(thread)).toEqual(["/sleep 5000", "instead", "echo: instead"]);
  });

  it("cancel action=rollback deletes the run once it stopped (waited, or in the background), a queued one at once; an ended one is kept", async () => {
    const thread = await newThread();
    const running = (await post(`/threads/${thread}/runs`, say("/sleep 5000"))).json();
    const queued = (await post(`/threads/${thread}/runs`, say("never", { multitask_strategy: "enqueue" }))).json();
    expect((await postEmpty(`/threads/${thread}/runs/${queued.run_id}/cancel?action=rollback&wait=1`)).statusCode).toBe(204);
    expect((await get(`/threads/${thread}/runs/${queued.run_id}`)).statusCode).toBe(404);
    await expect.poll(() => runStatus(thread, running.run_id)).toBe("running");
    expect((await postEmpty(`/threads/${thread}/runs/${running.run_id}/cancel?action=rollback`)).statusCode).toBe(202);
    await expect.poll(async () => (await get(`/threads/${thread}/runs/${running.run_id}`)).statusCode).toBe(404);

    const ended = (await post(`/threads/${thread}/runs`, say("kept"))).json();
    await get(`/threads/${thread}/runs/${ended.run_id}/join`);
    expect((await postEmpty(`/threads/${thread}/runs/${ended.run_id}/cancel?action=rollback&wait=1`)).statusCode).toBe(204);
    expect(await runStatus(thread, ended.run_id)).toBe("success");
  });
});

describe("LangGraph API: delayed runs (after_seconds)", () => {
  it("creates the run now, pending; due runs behind it go first; it runs once due", async () => {
    const thread = await newThread();
    const later = await post(`/threads/${thread}/runs`, say("later", { after_seconds: 3600 }));
    expect(later.json()).toMatchObject({ status: "pending", run_id: expect.any(String), thread_id: thread });
    // A delayed run keeps the thread busy: reject refuses, enqueue runs what is due first.
    expect((await post(`/threads/${thread}/runs`, say("refused"))).json().code).toBe("THREAD_BUSY");
    const now = (await post(`/threads/${thread}/runs`, say("now", { multitask_strategy: "enqueue" }))).json();
    await get(`/threads/${thread}/runs/${now.run_id}/join`);
    expect(await runStatus(thread, later.json().run_id)).toBe("pending");
    expect(await contents(thread)).toEqual(["now", "echo: now"]);
    expect((await postEmpty(`/threads/${thread}/runs/${later.json().run_id}/cancel`)).statusCode).toBe(202);

    const soon = (await post(`/threads/${thread}/runs`, say("soon", { after_seconds: 0.5 }))).json();
    expect(soon.status).toBe("pending");
    expect((await get(`/threads/${thread}/runs/${soon.run_id}/join`)).json().messages.at(-1)).toMatchObject({ content: "echo: soon" });
    expect(await runStatus(thread, soon.run_id)).toBe("success");

    const refused = await post(`/threads/${thread}/runs`, say("x", { after_seconds: -1 }));
    expect([refused.statusCode, refused.json().code]).toEqual([422, "INVALID_REQUEST"]);
  });
});

describe("LangGraph API: stateless background runs and thread counts", () => {
  it("queues a run on a thread of its own (POST /runs), and a batch (POST /runs/batch); a batch with a bad run queues nothing", async () => {
    const created = await post("/runs", say("alone", { on_completion: "keep" }));
    const run = created.json();
    expect(run).toMatchObject({ run_id: expect.any(String), thread_id: expect.any(String), assistant_id: ASSISTANT });
    expect(created.headers["content-location"]).toBe(`/threads/${run.thread_id}/runs/${run.run_id}`);
    expect((await get(`/threads/${run.thread_id}/runs/${run.run_id}/join`)).json().messages.at(-1)).toMatchObject({ content: "echo: alone" });

    const batch = (await post("/runs/batch", [say("one"), say("two", { on_completion: "keep" })])).json();
    expect(batch).toHaveLength(2);
    expect(new Set(batch.map((each: { thread_id: string }) => each.thread_id)).size).toBe(2);
    expect((await get(`/threads/${batch[1].thread_id}/runs/${batch[1].run_id}/join`)).json().messages.at(-1)).toMatchObject({ content: "echo: two" });
    // The default deletes the run's thread once it ended.
    await expect.poll(async () => (await get(`/threads/${batch[0].thread_id}`)).statusCode, { timeout: 10_000 }).toBe(404);

    const threadsBefore = (await post("/threads/count", {})).json();
    for (const refused of [[say("ok"), { ...say("bad"), assistant_id: "nobody" }], [say("ok"), say("x", { feedback_keys: ["helpful"] })], []]) {
      const answer = await post("/runs/batch", refused);
      expect(answer.statusCode, answer.body).toBeGreaterThanOrEqual(400);
    }
    expect((await post("/threads/count", {})).json()).toBe(threadsBefore);
  });

  it("counts threads by metadata, status and values", async () => {
    for (const n of [1, 2, 3]) await post("/threads", { metadata: { app: "count", n } });
    const interrupted = (await post("/threads", { metadata: { app: "count" } })).json().thread_id;
    await post(`/threads/${interrupted}/runs/wait`, say("/interrupt ready?"));
    const count = async (body: Record<string, unknown>) => (await post("/threads/count", body)).json();
    expect(await count({ metadata: { app: "count" } })).toBe(4);
    expect(await count({ metadata: { app: "count", n: 2 } })).toBe(1);
    expect(await count({ metadata: { app: "count" }, status: "interrupted" })).toBe(1);
    expect(await count({ metadata: { app: "count" }, values: { messages: [{ content: "/interrupt ready?" }] } })).toBe(1);
  });
});
