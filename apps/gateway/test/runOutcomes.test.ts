// What the run API tells a client about a run, on both store kinds: the outcome and messages of a
// waited run, the run in progress among a thread's runs, where a resumed stream continues (body or
// Last-Event-ID), and the message an affinity miss names.
import { type ThreadRunHandle, tryAcquireThreadRun } from "@axiom-lattice/core";
import { eventually, parseSse } from "@axiom-lattice/testing";
import { afterAll, describe, expect, it } from "vitest";
import { useGateway, useStoreEnv } from "./support";

const ASSISTANT = "echo";
const run = (threadId: string, fields: Record<string, unknown>) => ({ assistant_id: ASSISTANT, thread_id: threadId, ...fields });

describe.each(["memory", "postgresql"])("runs on %s stores", (stores) => {
  const storeEnv = useStoreEnv(stores);

  const gateway = useGateway(
    async ({ post }) => {
      expect((await post("/api/assistants", { id: ASSISTANT, name: "Echo", tools: ["echo"] })).statusCode).toBe(201);
    },
    // Affinity on (a replica id), with a short grace so a miss answers quickly.
    () => ({ AXIOM_REPLICA_ID: "replica-here", AXIOM_AFFINITY_GRACE_MS: "20", ...storeEnv() }),
  );
  const { post, get } = gateway;
  const newThread = async (threadId: string) => expect((await post("/api/threads", { thread_id: threadId, assistant_id: ASSISTANT })).statusCode).toBe(201);

  describe('mode "wait"', () => {
    it("answers the run's outcome and only the messages it added, not the thread's history", async () => {
      await newThread("wait-ok");
      expect((await post("/api/runs", run("wait-ok", { message: "first", mode: "wait" }))).statusCode).toBe(200);
      const response = await post("/api/runs", run("wait-ok", { message: "second", message_id: "wait-ok-2", mode: "wait" }));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        message_id: "wait-ok-2",
        status: "success",
        messages: [
          { id: "wait-ok-2", type: "human", content: "second" },
          { id: expect.any(String), type: "ai", content: "echo: second" },
        ],
      });
    });

    it("answers a failed run with 200, status error and its error: the message was accepted and ran", async () => {
      await newThread("wait-failed");
      const response = await post("/api/runs", run("wait-failed", { message: "/fail the tool broke", mode: "wait" }));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        status: "error",
        error: expect.stringContaining("the tool broke"),
        messages: [{ type: "human", content: "/fail the tool broke" }],
      });
      expect((await get("/api/threads/wait-failed/runs")).json()).toMatchObject({ runs: [{ status: "error" }] });
    });

    it("answers an interrupted run with its question, and the resume with its own messages", async () => {
      await newThread("wait-asks");
      const asked = await post("/api/runs", run("wait-asks", { message: "/interrupt Your name?", mode: "wait" }));
      expect(asked.json()).toMatchObject({ status: "interrupted", interrupts: [{ value: "Your name?" }] });
      const resumed = await post("/api/runs", run("wait-asks", { command: { resume: "Ada" }, mode: "wait" }));
      expect(resumed.json<{ messages: Array<{ type: string; content: string }> }>().messages.map(({ type, content }) => [type, content])).toEqual([
        ["tool", "Ada"],
        ["ai", "ask_human returned: Ada"],
      ]);
      // Followed again once the thread moved on (as a wait run is when its thread is resumed at once,
      // a delegation's caller by its callee): the interrupt is the run's own, not the thread's now.
      const agent = gateway.context.agents.getAgent({ tenantId: "default", assistantId: ASSISTANT, threadId: "wait-asks" });
      const { message_id: askedId } = asked.json<{ message_id: string }>();
      expect(await agent.waitForRun(askedId)).toMatchObject({ status: "interrupted", interrupts: [{ value: "Your name?" }] });
    });
  });

  it("lists the run in progress among the thread's runs, with its status and replica, then its outcome", async () => {
    await newThread("listed");
    await post("/api/runs", run("listed", { message: "done", message_id: "listed-1", mode: "wait" }));
    expect((await post("/api/runs", run("listed", { message: "/sleep 5000", message_id: "listed-2", mode: "queue" }))).statusCode).toBe(202);
    const runs = async () => (await get("/api/threads/listed/runs")).json<{ runs: Array<Record<string, unknown>> }>().runs;
    await eventually("the run to start", async () => (await runs()).length === 2);
    expect(await runs()).toEqual([
      expect.objectContaining({ message_id: "listed-1", status: "success" }),
      { message_id: "listed-2", status: "running", replica_id: "replica-here", started_at: expect.any(String), finished_at: null, error: null, abort_requested_at: null },
    ]);
    expect((await post("/api/runs/abort", run("listed", {}))).json()).toEqual({ success: true, aborted: true, message_id: "listed-2", status: "aborted" });
    await eventually("the abort to be recorded", async () => (await runs()).at(-1)?.status === "aborted");
    expect((await runs()).map((listed) => [listed.message_id, listed.status])).toEqual([
      ["listed-1", "success"],
      ["listed-2", "aborted"],
    ]);
  });

  describe("resume_stream", () => {
    /** A finished message of 5 events (ids resumed-N:0..4) on its own thread. */
    const finished = async (threadId: string, messageId: string) => {
      await newThread(threadId);
      const streamed = await post("/api/runs", run(threadId, { message: "one two three", message_id: messageId }));
      expect(parseSse(streamed.body).map((event) => event.id)).toEqual([0, 1, 2, 3, 4].map((index) => `${messageId}:${index}`));
    };
    const resume = (threadId: string, fields: Record<string, unknown>, lastEventId?: string) =>
      post("/api/runs/resume_stream", run(threadId, fields), lastEventId === undefined ? {} : { "last-event-id": lastEventId });
    const ids = (response: { body: string }) => parseSse(response.body).map((event) => event.id);

    it("continues after the Last-Event-ID header, which also names the message", async () => {
      await finished("resumed", "resumed-1");
      const response = await resume("resumed", {}, "resumed-1:2");
      expect(response.statusCode).toBe(200);
      expect(ids(response)).toEqual(["resumed-1:3", "resumed-1:4"]);
      expect(ids(await resume("resumed", { message_id: "resumed-1", after: 0 }))).toEqual(["resumed-1:1", "resumed-1:2", "resumed-1:3", "resumed-1:4"]);
    });

    it("with a header and a body position, continues after the later one", async () => {
      await finished("both", "both-1");
      // A reconnecting client resends its first body: the header is where it got to.
      expect(ids(await resume("both", { message_id: "both-1", after: -1 }, "both-1:3"))).toEqual(["both-1:4"]);
      expect(ids(await resume("both", { message_id: "both-1", after: 3 }, "both-1:0"))).toEqual(["both-1:4"]);
    });

    it.each([
      ["a malformed header", {}, "garbage"],
      ["a header without an index", {}, "both-1"],
      ["a negative index", {}, "both-1:-1"],
      ["an index beyond 2^53", {}, "both-1:9999999999999999"],
      ["a header naming another message than the body", { message_id: "other-1" }, "both-1:1"],
      ["neither a message id nor a header", {}, undefined],
    ])("refuses %s with 400 INVALID_REQUEST", async (_case, fields, lastEventId) => {
      const response = await resume("both", fields, lastEventId);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ success: false, code: "INVALID_REQUEST", error: expect.any(String) });
    });

    it("answers 404 for a header naming a message of another thread", async () => {
      await newThread("elsewhere");
      expect((await resume("elsewhere", {}, "both-1:1")).statusCode).toBe(404);
    });
  });

  describe("while a peer replica runs the thread, with AXIOM_STREAM_RELAY=off", () => {
    // On PostgreSQL stores it shares the database, where the assistant exists already.
    const strict = useGateway(
      async ({ post }) => expect([201, 409]).toContain((await post("/api/assistants", { id: ASSISTANT, name: "Echo", tools: ["echo"] })).statusCode),
      () => ({ AXIOM_REPLICA_ID: "replica-strict", AXIOM_AFFINITY_GRACE_MS: "20", AXIOM_STREAM_RELAY: "off", ...storeEnv() }),
    );
    let peerLease: ThreadRunHandle | null = null;
    afterAll(() => peerLease?.release());

    it("streams affinity_miss naming the owner and the queued message, whose id the client did not choose", async () => {
      expect((await strict.post("/api/threads", { thread_id: "peer-run", assistant_id: ASSISTANT })).statusCode).toBe(201);
      const scope = { tenantId: "default", assistantId: ASSISTANT, threadId: "peer-run" };
      peerLease = await tryAcquireThreadRun(scope, { store: strict.context.stores.lease, ttlMs: 60_000, replicaId: "replica-peer", logger: strict.context.logger });
      expect(peerLease).not.toBeNull();

      const response = await strict.post("/api/runs", run("peer-run", { message: "who runs me?" }));
      const [event, ...rest] = parseSse(response.body);
      expect(rest).toEqual([]);
      expect(event).toMatchObject({ type: "affinity_miss", data: { code: "AFFINITY_MISS", owner: "replica-peer", thread_id: "peer-run", message_id: expect.any(String) } });
      const { message_id: messageId } = event.data as { message_id: string };
      // The id is the queued message's: the client can follow it on the owner.
      const { pending } = (await strict.get("/api/threads/peer-run/queue")).json<{ pending: Array<{ id: string }> }>();
      expect(pending.map((message) => message.id)).toEqual([messageId]);

      const resumed = parseSse((await strict.post("/api/runs/resume_stream", run("peer-run", { message_id: messageId }))).body);
      expect(resumed).toMatchObject([{ type: "affinity_miss", data: { owner: "replica-peer", message_id: messageId } }]);
    });
  });
});
