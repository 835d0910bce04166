// POST /api/runs/abort as a client sees it, on both store kinds, and across two gateways on one
// database (issue 23): any replica takes the abort, the replica running the run applies it, and the
// answer says how the run ended.
import { threadRunLeaseKey } from "@axiom-lattice/core";
import { eventually } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestGateway, useGateway, useStoreEnv } from "./support";

const ASSISTANT = "echo";
const TENANT = "default";
const scope = { tenantId: TENANT, assistantId: ASSISTANT };
const run = (threadId: string, fields: Record<string, unknown> = {}) => ({ assistant_id: ASSISTANT, thread_id: threadId, ...fields });
/** The shortest lease the gateway accepts: an abort then waits half a second at most. */
const RUN_LEASE_MS = 1_000;

interface RunRecordView {
  message_id: string;
  status: string;
  replica_id: string | null;
  abort_requested_at: string | null;
}

describe.each(["memory", "postgresql"])("POST /api/runs/abort on %s stores", (stores) => {
  const storeEnv = useStoreEnv(stores);
  const gateway = useGateway(
    async ({ post }) => {
      expect((await post("/api/assistants", { id: ASSISTANT, name: "Echo" })).statusCode).toBe(201);
      expect((await post("/api/threads", run("bad-input"))).statusCode).toBe(201);
    },
    () => ({ AXIOM_REPLICA_ID: "gw-here", AXIOM_RUN_LEASE_MS: String(RUN_LEASE_MS), ...storeEnv() }),
  );
  const { post, get } = gateway;
  // On PostgreSQL, a second replica on the same database: where the controls are sent.
  let peer: Awaited<ReturnType<typeof buildTestGateway>> | undefined;
  beforeAll(async () => {
    if (stores === "postgresql") peer = await buildTestGateway({ AXIOM_REPLICA_ID: "gw-peer", ...storeEnv() });
  });
  afterAll(async () => {
    await peer?.app.close();
    await peer?.context.close();
  });
  const postToPeer = (url: string, payload: unknown) =>
    peer!.app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
  const newThread = async (threadId: string) => expect((await post("/api/threads", run(threadId))).statusCode).toBe(201);
  const runs = async (threadId: string) => (await get(`/api/threads/${threadId}/runs`)).json<{ runs: RunRecordView[] }>().runs;
  const running = (threadId: string, messageId: string) =>
    eventually(`${messageId} running`, async () => (await runs(threadId)).some((listed) => listed.message_id === messageId && listed.status === "running"));
  /** A new thread running a long message `<thread>-1` on this gateway. */
  const startLongRun = async (threadId: string) => {
    await newThread(threadId);
    expect((await post("/api/runs", run(threadId, { message: "/sleep 600000", message_id: `${threadId}-1`, mode: "queue" }))).statusCode).toBe(202);
    await running(threadId, `${threadId}-1`);
  };

  it("answers aborted: false when no run is in progress", async () => {
    await newThread("idle");
    const response = await post("/api/runs/abort", run("idle"));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, aborted: false });
  });

  it("stops the run in progress and answers once it ended aborted; its record shows the request", async () => {
    await startLongRun("stopped");

    const response = await post("/api/runs/abort", run("stopped"));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, aborted: true, message_id: "stopped-1", status: "aborted" });
    expect(await runs("stopped")).toEqual([expect.objectContaining({ message_id: "stopped-1", status: "aborted", error: "Run aborted", abort_requested_at: expect.any(String) })]);
  });

  it("answers how a named run ended when it ended before the abort, and leaves its record as it was", async () => {
    await newThread("ended");
    expect((await post("/api/runs", run("ended", { message: "done already", message_id: "ended-1", mode: "wait" }))).statusCode).toBe(200);
    const response = await post("/api/runs/abort", run("ended", { message_id: "ended-1" }));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, aborted: false, message_id: "ended-1", status: "success" });
    expect(await runs("ended")).toEqual([expect.objectContaining({ message_id: "ended-1", status: "success", abort_requested_at: null })]);
  });

  it("aborts only the named message: a queued one never runs, the run in progress goes on", async () => {
    await newThread("named");
    expect((await post("/api/runs", run("named", { message: "/sleep 600", message_id: "named-1", mode: "queue" }))).statusCode).toBe(202);
    await running("named", "named-1");
    expect((await post("/api/runs", run("named", { message: "skip me", message_id: "named-2", mode: "queue" }))).statusCode).toBe(202);

    const response = await post("/api/runs/abort", run("named", { message_id: "named-2" }));
    expect(response.json()).toEqual({ success: true, aborted: true, message_id: "named-2", status: "aborted" });
    await eventually("the run in progress to finish", async () => (await runs("named")).every((listed) => listed.status !== "running"));
    expect((await runs("named")).map((listed) => [listed.message_id, listed.status])).toEqual([
      ["named-2", "aborted"],
      ["named-1", "success"],
    ]);
    const state = (await get("/api/threads/named/state")).json<{ messages: Array<{ content: string }> }>();
    expect(state.messages.map((message) => message.content)).toEqual(["/sleep 600", "echo: /sleep 600"]);
  });

  it("answers 404 NOT_FOUND for a message that is not on the thread, and records nothing", async () => {
    await newThread("mine");
    await startLongRun("theirs");
    for (const messageId of ["theirs-1", "no-such-message"]) {
      const response = await post("/api/runs/abort", run("mine", { message_id: messageId }));
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ success: false, code: "NOT_FOUND", error: expect.stringContaining(messageId) });
    }
    expect(await runs("theirs")).toEqual([expect.objectContaining({ message_id: "theirs-1", status: "running", abort_requested_at: null })]);
    expect((await post("/api/runs/abort", run("theirs"))).json()).toMatchObject({ aborted: true });
  });

  it("answers 202 requested when the run's replica is gone; the replica taking the thread over applies it without running the message", async () => {
    await newThread("orphaned");
    // A replica that died while running the message: its lease and claim stay until they expire.
    const { queue, lease } = gateway.context.stores;
    expect(await lease.acquire(threadRunLeaseKey({ ...scope, threadId: "orphaned" }), "dead-replica#1", RUN_LEASE_MS)).not.toBeNull();
    expect((await post("/api/runs", run("orphaned", { message: "/sleep 600000", message_id: "orphaned-1", mode: "queue" }))).statusCode).toBe(202);
    expect(await queue.claimPendingMessages({ ...scope, threadId: "orphaned" }, { owner: "dead-replica#1", leaseMs: RUN_LEASE_MS })).toMatchObject([{ id: "orphaned-1" }]);

    const response = await post("/api/runs/abort", run("orphaned"));
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ success: true, aborted: false, requested: true, message_id: "orphaned-1" });
    expect(await runs("orphaned")).toEqual([expect.objectContaining({ message_id: "orphaned-1", status: "running", abort_requested_at: expect.any(String) })]);

    // Once the dead replica's lease expired, this one takes the thread over (as its sweep would).
    await eventually("the thread taken over", async () => (await post("/api/runs/recover", run("orphaned"))).json<{ code?: string }>().code === undefined);
    expect(await runs("orphaned")).toEqual([expect.objectContaining({ message_id: "orphaned-1", status: "aborted", error: "Run aborted" })]);
    expect((await get("/api/threads/orphaned/state")).json()).toMatchObject({ messages: [] });
    expect((await post("/api/runs/abort", run("orphaned", { message_id: "orphaned-1" }))).json()).toEqual({
      success: true,
      aborted: true,
      message_id: "orphaned-1",
      status: "aborted",
    });
  });

  it.runIf(stores === "postgresql")("an abort sent to the replica not running the thread stops the run where it runs", async () => {
    await startLongRun("across");
    const response = await postToPeer("/api/runs/abort", run("across"));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, aborted: true, message_id: "across-1", status: "aborted" });
    expect(await runs("across")).toEqual([expect.objectContaining({ message_id: "across-1", status: "aborted", replica_id: "gw-here" })]);
  });

  it.runIf(stores === "postgresql")("the interrupt strategy sent to the replica not running the thread aborts the run there, then runs the new message", async () => {
    await startLongRun("interrupted");
    const urgent = await postToPeer("/api/runs", run("interrupted", { message: "urgent", message_id: "interrupted-2", mode: "wait", multitask_strategy: "interrupt" }));
    expect(urgent.json()).toMatchObject({ message_id: "interrupted-2", status: "success" });
    expect((await runs("interrupted")).map((listed) => [listed.message_id, listed.status, listed.replica_id])).toEqual([
      ["interrupted-1", "aborted", "gw-here"],
      ["interrupted-2", "success", expect.any(String)],
    ]);
  });

  it.each<[string, Record<string, unknown>]>([
    ["a message id of the wrong type", { message_id: 42 }],
    ["a message id with characters ids may not have", { message_id: "a b" }],
    ["an empty message id", { message_id: "" }],
    ["a field it does not know", { run_id: "x" }],
    ["a thread id of the wrong type", { thread_id: ["t"] }],
  ])("refuses %s with 400 INVALID_REQUEST", async (_label, fields) => {
    const response = await post("/api/runs/abort", { ...run("bad-input"), ...fields });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, code: "INVALID_REQUEST", error: expect.any(String) });
  });
});

