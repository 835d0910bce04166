import { AFFINITY_ECHO_HEADER, REPLICA_HEADER } from "@axiom-lattice/protocols";
import type { StreamChunk } from "@axiom-lattice/agent";
import { eventually, parseSse } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { useGateway, useStoreEnv } from "./support";

describe("run API (in-memory stores)", () => {
  const gateway = useGateway(async ({ post }) => {
    expect((await post("/api/assistants", { id: "echo", name: "Echo", tools: ["clock", "echo"] })).statusCode).toBe(201);
    expect((await post("/api/threads", { thread_id: "t1", assistant_id: "echo" })).statusCode).toBe(201);
    expect((await post("/api/assistants", { id: "other", name: "Other" }, { "x-tenant-id": "tenant-y" })).statusCode).toBe(201);
    expect((await post("/api/threads", { thread_id: "ty", assistant_id: "other" }, { "x-tenant-id": "tenant-y" })).statusCode).toBe(201);
  });
  const { post, get } = gateway;

  /** Streams one message to its end on thread t1; each test that needs a finished message makes its own. */
  const streamedMessage = async (messageId: string) => {
    const response = await post("/api/runs", { assistant_id: "echo", thread_id: "t1", message: "hello there", message_id: messageId, mode: "stream" });
    expect(response.statusCode).toBe(200);
    return response;
  };

  it("streams a run as SSE with ids <message_id>:<index> and the replica header", async () => {
    const response = await streamedMessage("m-stream");
    expect(response.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(response.headers[REPLICA_HEADER]).toBe(gateway.context.replicaId);
    const events = parseSse(response.body);
    expect(events.map((event) => event.id)).toEqual(events.map((_, index) => `m-stream:${index}`));
    const text = events.filter((event) => event.type === "message_chunk").map((event) => (event.data as { content: string }).content).join("");
    expect(text).toBe("echo: hello there");
    expect(events.at(-1)?.type).toBe("message_completed");
  });

  it("queues (202) and waits (200 with the final messages)", async () => {
    const queued = await post("/api/runs", { assistant_id: "echo", thread_id: "t1", message: "later", mode: "queue" });
    expect(queued.statusCode).toBe(202);
    expect(queued.json()).toMatchObject({ queued: true, message_id: expect.any(String) });

    const waited = await post("/api/runs", { assistant_id: "echo", thread_id: "t1", message: "/tool echo {\"text\":\"ping\"}", mode: "wait" });
    expect(waited.statusCode).toBe(200);
    const body = waited.json() as { status: string; messages: Array<{ type: string; content: string }> };
    expect(body.status).toBe("success");
    expect(body.messages.some((message) => message.type === "tool" && message.content.includes("ping"))).toBe(true);
  });

  it("replays a message's chunks with resume_stream after a given index", async () => {
    await streamedMessage("m-replayed");
    const response = await post("/api/runs/resume_stream", { assistant_id: "echo", thread_id: "t1", message_id: "m-replayed", after: 1 });
    expect(response.statusCode).toBe(200);
    const events = parseSse(response.body);
    expect(events[0].id).toBe("m-replayed:2");
    expect(events.at(-1)?.type).toBe("message_completed");
  });

  it("lists the thread's runs with their status and replica", async () => {
    await streamedMessage("m-listed");
    const response = await get("/api/threads/t1/runs");
    expect(response.statusCode).toBe(200);
    const { runs } = response.json() as { runs: Array<{ message_id: string; status: string; replica_id: string }> };
    expect(runs.find((run) => run.message_id === "m-listed")).toMatchObject({ status: "success", replica_id: gateway.context.replicaId });
  });

  it("echoes a valid affinity header and drops an invalid one", async () => {
    const valid = await get("/api/threads/t1", { "x-axiom-affinity": "replica-1" });
    expect(valid.headers[AFFINITY_ECHO_HEADER]).toBe("replica-1");
    const invalid = await get("/api/threads/t1", { "x-axiom-affinity": "bad value!" });
    expect(invalid.headers[AFFINITY_ECHO_HEADER]).toBeUndefined();
  });

  it.each([
    ["an unknown assistant", { assistant_id: "nope", thread_id: "t1", message: "x", mode: "queue" }, 404, "NOT_FOUND"],
    ["an unknown thread", { assistant_id: "echo", thread_id: "nope", message: "x", mode: "queue" }, 404, "NOT_FOUND"],
    ["another tenant's thread", { assistant_id: "other", thread_id: "ty", message: "x", mode: "queue" }, 404, "NOT_FOUND"],
    ["a missing message", { assistant_id: "echo", thread_id: "t1", mode: "queue" }, 400, "INVALID_REQUEST"],
    ["a wrong type", { assistant_id: "echo", thread_id: "t1", message: 42, mode: "queue" }, 400, "INVALID_REQUEST"],
    ["an unknown mode", { assistant_id: "echo", thread_id: "t1", message: "x", mode: "later" }, 400, "INVALID_REQUEST"],
    ["a bad id", { assistant_id: "echo", thread_id: "../etc", message: "x", mode: "queue" }, 400, "INVALID_REQUEST"],
    ["an unknown field", { assistant_id: "echo", thread_id: "t1", message: "x", mode: "queue", extra: 1 }, 400, "INVALID_REQUEST"],
  ])("refuses %s", async (_label, payload, status, code) => {
    const response = await post("/api/runs", payload);
    expect(response.statusCode).toBe(status);
    expect(response.json()).toMatchObject({ success: false, code, error: expect.any(String) });
  });

  it("refuses a malformed tenant header", async () => {
    const response = await get("/api/threads", { "x-tenant-id": "a b" });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "INVALID_TENANT" });
  });

  it("refuses a body over 1 MiB with 413 and queues nothing", async () => {
    const before = (await get("/api/threads/t1/queue")).json() as { size: number };
    const response = await post("/api/runs", { assistant_id: "echo", thread_id: "t1", message: "x".repeat(1024 * 1024), mode: "queue" });
    expect(response.statusCode).toBe(413);
    const after = (await get("/api/threads/t1/queue")).json() as { size: number };
    expect(after.size).toBe(before.size);
  });

  it("answers 409 THREAD_BUSY with reject while a run is active", async () => {
    await post("/api/threads", { thread_id: "busy", assistant_id: "echo" });
    const slow = await post("/api/runs", { assistant_id: "echo", thread_id: "busy", message: "/sleep 2000", mode: "queue" });
    expect(slow.statusCode).toBe(202);
    const rejected = await post("/api/runs", { assistant_id: "echo", thread_id: "busy", message: "x", mode: "queue", multitask_strategy: "reject" });
    expect(rejected.statusCode).toBe(409);
    expect(rejected.json()).toMatchObject({ success: false, code: "THREAD_BUSY" });
    await eventually("the run started", async () => (await get("/api/threads/busy/queue")).json<{ owner: string | null }>().owner === gateway.context.replicaId);
    const aborted = await post("/api/runs/abort", { assistant_id: "echo", thread_id: "busy" });
    expect(aborted.statusCode).toBe(200);
    expect(aborted.json()).toMatchObject({ aborted: true });
    await eventually("the thread released", async () => (await get("/api/threads/busy/queue")).json<{ owner: string | null }>().owner === null);
  });

  it("does not let tenant X abort, recover or stream tenant Y's thread", async () => {
    await streamedMessage("m-foreign");
    for (const url of ["/api/runs/abort", "/api/runs/recover"]) {
      const response = await post(url, { assistant_id: "other", thread_id: "ty" });
      expect(response.statusCode).toBe(404);
    }
    const stream = await post("/api/runs/resume_stream", { assistant_id: "other", thread_id: "ty", message_id: "m-foreign" });
    expect(stream.statusCode).toBe(404);
    expect((await get("/api/threads/ty")).statusCode).toBe(404);
  });
});

describe.each(["memory", "postgresql"])("a run request's assistant and thread, judged by the enqueue, on %s stores", (stores) => {
  const env = useStoreEnv(stores);
  const gateway = useGateway(async ({ post }) => {
    for (const id of ["echo", "other"]) expect((await post("/api/assistants", { id, name: id })).statusCode).toBe(201);
    expect((await post("/api/threads", { thread_id: "mine", assistant_id: "echo" })).statusCode).toBe(201);
    expect((await post("/api/threads", { thread_id: "theirs", assistant_id: "other" })).statusCode).toBe(201);
    expect((await post("/api/assistants", { id: "elsewhere", name: "Elsewhere" }, { "x-tenant-id": "tenant-z" })).statusCode).toBe(201);
  }, env);
  const { post, get } = gateway;

  const refusals = [
    ["an unknown assistant", { assistant_id: "nope", thread_id: "mine" }, "Assistant nope not found"],
    ["an unknown assistant and thread", { assistant_id: "nope", thread_id: "nowhere" }, "Assistant nope not found"],
    ["another tenant's assistant", { assistant_id: "elsewhere", thread_id: "mine" }, "Assistant elsewhere not found"],
    ["an unknown thread", { assistant_id: "echo", thread_id: "nowhere" }, "Thread nowhere not found for assistant echo"],
    ["a thread of another assistant", { assistant_id: "echo", thread_id: "theirs" }, "Thread theirs not found for assistant echo"],
  ] as const;

  it.each(["queue", "wait", "stream"])("refuses, in mode %s and with every strategy, as reading them first did, queueing nothing", async (mode) => {
    for (const multitask_strategy of ["enqueue", "reject", "interrupt"]) {
      for (const [label, target, message] of refusals) {
        const response = await post("/api/runs", { ...target, message: "x", mode, multitask_strategy });
        expect([label, response.statusCode, response.json()]).toEqual([label, 404, { success: false, code: "NOT_FOUND", error: message }]);
      }
    }
    for (const thread of ["mine", "theirs"]) expect((await get(`/api/threads/${thread}/runs`)).json()).toMatchObject({ runs: [] });
    // The stream requests' places, taken before the add, were given back.
    expect(gateway.context.streams.byTenant().size).toBe(0);
  });

  it("queues on the assistant's own thread", async () => {
    const response = await post("/api/runs", { assistant_id: "echo", thread_id: "mine", message: "hello", mode: "wait" });
    expect([response.statusCode, response.json().status]).toEqual([200, "success"]);
  });
});

describe("deleting a thread", () => {
  const gateway = useGateway(async ({ post }) => {
    await post("/api/assistants", { id: "echo", name: "Echo" });
  });
  const { post, get, del } = gateway;
  const scope = { tenantId: "default", assistantId: "echo" };
  const queue = () => gateway.context.stores.queue;

  it("removes everything of it: the same id created again has no runs, state, queue or old answer", async () => {
    await post("/api/threads", { thread_id: "gone", assistant_id: "echo" });
    const run = await post("/api/runs", { assistant_id: "echo", thread_id: "gone", message: "remember me", message_id: "gone-1", mode: "wait" });
    expect(run.statusCode).toBe(200);
    expect(await queue().getMessage("gone-1", scope)).toMatchObject({ runStatus: "success" });

    // Right after a run: its processor may still hold the thread for a moment, which is no reason to refuse.
    expect((await del("/api/threads/gone")).statusCode).toBe(204);
    expect((await get("/api/threads/gone")).statusCode).toBe(404);
    expect(await queue().getMessage("gone-1", scope)).toBeNull();

    expect((await post("/api/threads", { thread_id: "gone", assistant_id: "echo" })).statusCode).toBe(201);
    expect((await get("/api/threads/gone/runs")).json()).toEqual({ runs: [], next_cursor: null, has_more: false });
    expect((await get("/api/threads/gone/state")).json()).toMatchObject({ messages: [], next: [], interrupts: [] });
    expect((await get("/api/threads/gone/queue")).json()).toMatchObject({ processing: [], pending: [], size: 0 });
    const stream = await post("/api/runs/resume_stream", { assistant_id: "echo", thread_id: "gone", message_id: "gone-1" });
    expect(stream.statusCode).toBe(404);
    expect(stream.json()).toMatchObject({ success: false, code: "NOT_FOUND" });
    // Behind the route's lookup, the agent's stream asks the store too: no buffer replays the old answer.
    const chunks: StreamChunk[] = [];
    for await (const chunk of gateway.context.agents.getAgent({ ...scope, threadId: "gone" }).chunkStream("gone-1")) chunks.push(chunk);
    expect(chunks).toEqual([expect.objectContaining({ type: "error", data: expect.objectContaining({ code: "MESSAGE_NOT_FOUND" }) })]);
  });

  it("refuses with 409 THREAD_BUSY while a run is in progress, and deletes nothing", async () => {
    await post("/api/threads", { thread_id: "running", assistant_id: "echo", metadata: { keep: true } });
    const queued = await post("/api/runs", { assistant_id: "echo", thread_id: "running", message: "/sleep 2000", message_id: "running-1", mode: "queue" });
    expect(queued.statusCode).toBe(202);
    await eventually("the run started", async () => (await get("/api/threads/running/queue")).json<{ processing: unknown[] }>().processing.length === 1);

    const response = await del("/api/threads/running");
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ success: false, code: "THREAD_BUSY", error: expect.stringContaining("run in progress") });
    expect((await get("/api/threads/running")).json()).toMatchObject({ id: "running", metadata: { keep: true } });
    expect(await queue().getMessage("running-1", scope)).toMatchObject({ status: "processing", runStatus: "running" });

    await post("/api/runs/abort", { assistant_id: "echo", thread_id: "running" });
    await eventually("the thread released", async () => (await get("/api/threads/running/queue")).json<{ owner: string | null }>().owner === null);
    expect((await get("/api/threads/running/runs")).json()).toMatchObject({ runs: [{ message_id: "running-1", status: "aborted" }] });
    expect((await del("/api/threads/running")).statusCode).toBe(204);
  });
});
