import { eventually, runRecords } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { type QueueWakeup, threadRunLeaseKey } from "@axiom-lattice/core";
import { ThreadBusyError } from "../src";
import { collect, collectUntil, manager, runStatus, scope, thread, useSharedStores } from "./support";

const stores = useSharedStores();

const running = (messageId: string) => eventually(`${messageId} running`, async () => (await runStatus(stores, messageId)) === "running", { timeoutMs: 5_000 });

/** Notices that reach nobody: the notification was lost, or its replica is gone. */
const lostNotices: QueueWakeup = { notify: async () => {}, subscribe: () => () => {} };

describe("abort", () => {
  it("stops the current run (also mid-/sleep); the message is completed as aborted and not retried", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    expect(await agent.abort()).toEqual({});
    const { messageId, stream } = await agent.addMessage({ message: "/sleep 600000" }, { mode: "stream" });
    await running(messageId);

    expect(await agent.abort()).toEqual({ messageId, status: "aborted" });
    expect((await collect(stream)).at(-1)).toMatchObject({ type: "message_failed", data: { status: "aborted" } });
    expect(await stores.queue.getMessage(messageId, scope)).toMatchObject({ status: "completed", runStatus: "aborted" });
    expect(await stores.queue.getQueueSize({ ...scope, threadId: "t1" })).toBe(0);

    const next = await agent.addMessage({ message: "still there?" }, { mode: "wait" });
    expect(await next.completion).toMatchObject({ status: "success" });
    expect((await runRecords(stores.queue, { ...scope, threadId: "t1" })).map((run) => run.runStatus)).toEqual(["aborted", "success"]);
  });
});

describe("abort from any replica", () => {
  it("a peer's abort stops the run where it runs, and reports it once it really stopped", async () => {
    const runner = manager(stores).getAgent(thread("t1"));
    const peer = manager(stores).getAgent(thread("t1"));
    const { messageId, stream } = await runner.addMessage({ message: "/sleep 600000" }, { mode: "stream" });
    await running(messageId);

    // Within a wait shorter than the runner's claim renewal (every 10 s by default): its notice did it.
    expect(await peer.abort(undefined, { waitMs: 3_000 })).toEqual({ messageId, status: "aborted" });
    expect(await stores.queue.getMessage(messageId, scope)).toMatchObject({ status: "completed", runStatus: "aborted", abortRequestedAt: expect.any(Date) });
    expect((await collect(stream)).at(-1)).toMatchObject({ type: "message_failed", data: { status: "aborted" } });
  });

  it("a lost notice: the runner's claim renewal finds the request and stops the run", async () => {
    const runner = manager(stores, { wakeup: lostNotices, claimLeaseMs: 600, threadRunTtlMs: 600 }).getAgent(thread("t1"));
    const peer = manager(stores, { wakeup: lostNotices }).getAgent(thread("t1"));
    const { messageId } = await runner.addMessage({ message: "/sleep 600000" });
    await running(messageId);

    // No notice reaches the runner, and it lives on (nobody takes the thread over): its renewal applied it.
    expect(await peer.abort(undefined, { waitMs: 5_000 })).toEqual({ messageId, status: "aborted" });
  });

  it("names one message: a pending one is aborted at once and never runs; the run in progress goes on", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const slow = await agent.addMessage({ message: "/sleep 300" });
    await running(slow.messageId);
    const queued = await agent.addMessage({ message: "never mind" });

    expect(await manager(stores).getAgent(thread("t1")).abort(queued.messageId)).toEqual({ messageId: queued.messageId, status: "aborted" });
    expect(await agent.waitForRun(slow.messageId)).toMatchObject({ status: "success" });
    expect((await runRecords(stores.queue, { ...scope, threadId: "t1" })).map((run) => [run.id, run.runStatus])).toEqual([
      [queued.messageId, "aborted"],
      [slow.messageId, "success"],
    ]);
    expect((await agent.getState()).messages.map((message) => message.content)).toEqual(["/sleep 300", "echo: /sleep 300"]);
    expect(await agent.abort("no-such-message")).toEqual({});
  });

  it("a run that ended first is reported as it ended, and keeps its outcome", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const { messageId, completion } = await agent.addMessage({ message: "quick" }, { mode: "wait" });
    await completion;
    expect(await agent.abort(messageId)).toEqual({ messageId, status: "success" });
    expect(await stores.queue.getMessage(messageId, scope)).not.toHaveProperty("abortRequestedAt");
  });

  it("with its runner gone, the request stays on the message: the replica taking the thread over completes it as aborted without running it", async () => {
    const { id } = await stores.queue.addMessage({ threadId: "t1", scope, content: { message: "/sleep 600000" } });
    // The runner claimed it under the thread's run lease, and died.
    expect(await stores.leases.acquire(threadRunLeaseKey(thread("t1")), "dead-replica#1", 300)).not.toBeNull();
    await stores.queue.claimPendingMessages({ ...scope, threadId: "t1" }, { owner: "dead-replica#1", leaseMs: 300 });

    expect(await manager(stores, { wakeup: lostNotices }).getAgent(thread("t1")).abort(undefined, { waitMs: 100 })).toEqual({ messageId: id });
    manager(stores, { wakeup: lostNotices }).startQueueSweep({ intervalMs: 100 });
    await eventually("the next holder to apply the abort", async () => (await runStatus(stores, id)) === "aborted", { timeoutMs: 5_000 });
    expect((await manager(stores).getAgent(thread("t1")).getState()).messages).toEqual([]);
  });

  it("interrupt sent to a peer aborts the run where it runs, then runs the new message first", async () => {
    const runner = manager(stores).getAgent(thread("t1"));
    const slow = await runner.addMessage({ message: "/sleep 600000" });
    await running(slow.messageId);
    const queued = await runner.addMessage({ message: "queued" });
    const urgent = await manager(stores).getAgent(thread("t1")).addMessage({ message: "urgent" }, { multitaskStrategy: "interrupt" });
    await runner.waitForRun(queued.messageId);

    expect((await runRecords(stores.queue, { ...scope, threadId: "t1" })).map((run) => [run.id, run.runStatus])).toEqual([
      [slow.messageId, "aborted"],
      [urgent.messageId, "success"],
      [queued.messageId, "success"],
    ]);
  });
});

describe("multitask strategies", () => {
  it("reject: THREAD_BUSY while a run is active or messages are queued; accepted once idle", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const { messageId } = await agent.addMessage({ message: "/sleep 600000" });
    await running(messageId);
    await expect(agent.addMessage({ message: "me too" }, { multitaskStrategy: "reject" })).rejects.toThrow(ThreadBusyError);
    await expect(agent.addMessage({ message: "me too" }, { multitaskStrategy: "reject" })).rejects.toMatchObject({ code: "THREAD_BUSY" });
    expect(await stores.queue.getQueueSize({ ...scope, threadId: "t1" })).toBe(1);

    await agent.abort();
    const accepted = await agent.addMessage({ message: "now?" }, { mode: "wait", multitaskStrategy: "reject" });
    expect(await accepted.completion).toMatchObject({ status: "success" });
  });

  it("reject: of concurrent adds on an idle thread, across replicas, exactly one is accepted; the others get THREAD_BUSY", async () => {
    const agents = [manager(stores), manager(stores)].map((replica) => replica.getAgent(thread("t1")));
    const outcomes = await Promise.allSettled(
      agents.flatMap((agent, a) => Array.from({ length: 4 }, (_, n) => agent.addMessage({ message: `racer ${a}.${n}` }, { multitaskStrategy: "reject" }))),
    );
    const accepted = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
    expect(accepted).toHaveLength(1);
    for (const outcome of outcomes) if (outcome.status === "rejected") expect(outcome.reason).toBeInstanceOf(ThreadBusyError);

    expect(await agents[0].waitForRun(accepted[0].messageId)).toMatchObject({ status: "success" });
    expect((await runRecords(stores.queue, { ...scope, threadId: "t1" })).map((run) => run.id)).toEqual([accepted[0].messageId]);
  });

  it("interrupt: aborts the active run, then runs the new message ahead of the queue", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const slow = await agent.addMessage({ message: "/sleep 600000" });
    await running(slow.messageId);
    const queued = await agent.addMessage({ message: "queued" });
    const urgent = await agent.addMessage({ message: "urgent" }, { multitaskStrategy: "interrupt" });
    await agent.waitForRun(queued.messageId);

    expect((await runRecords(stores.queue, { ...scope, threadId: "t1" })).map((run) => [run.id, run.runStatus])).toEqual([
      [slow.messageId, "aborted"],
      [urgent.messageId, "success"],
      [queued.messageId, "success"],
    ]);
  });

  it("enqueue (the default): waits its turn behind the active run", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const first = await agent.addMessage({ message: "/sleep 50" });
    const second = await agent.addMessage({ message: "after" }, { mode: "wait" });
    expect(await second.completion).toMatchObject({ status: "success" });
    expect((await runRecords(stores.queue, { ...scope, threadId: "t1" })).map((run) => run.id)).toEqual([first.messageId, second.messageId]);
  });
});

describe("losing ownership", () => {
  it("stops a run whose thread-run lease was taken over, without completing its message", async () => {
    const agent = manager(stores, { threadRunTtlMs: 300 }).getAgent(thread("t1"));
    const { messageId, stream } = await agent.addMessage({ message: "/sleep 600000" }, { mode: "stream" });
    await running(messageId);

    // Another replica takes the lease over (as after an expiry); the heartbeat finds out.
    const key = threadRunLeaseKey(thread("t1"));
    const lease = await stores.leases.get(key);
    await stores.leases.release(key, lease!.holder);
    expect(await stores.leases.acquire(key, "peer-replica#1", 60_000)).not.toBeNull();

    // Not the end of the stream: the run goes on where the thread runs next (nowhere here).
    expect((await collectUntil(stream, "run_handed_over")).at(-1)).toMatchObject({ data: { code: "LEASE_LOST", replica: expect.any(String) } });
    expect(await stores.queue.getMessage(messageId, scope)).toMatchObject({ status: "processing", runStatus: "running" });
  });

  it("shutdown hands the running message back; a peer continues it from the checkpoint, without adding it twice", async () => {
    const leaving = manager(stores);
    const { messageId, stream } = await leaving.getAgent(thread("t1")).addMessage({ message: "/sleep 800" }, { mode: "stream" });
    await running(messageId);
    const peer = manager(stores);

    await leaving.shutdown();
    // The leaving replica's stream says why it stops there, and ends: its client resumes on a peer.
    expect((await collect(stream)).at(-1)).toMatchObject({ type: "run_handed_over", data: { code: "REPLICA_SHUTDOWN" } });
    // The peer runs no sweep: the leaving replica's wake-up is what starts it.
    await eventually("the peer to finish the message", async () => (await runStatus(stores, messageId)) === "success", { timeoutMs: 5_000 });
    expect((await peer.getAgent(thread("t1")).getState()).messages.map((message) => [message.id, message.content])).toEqual([
      [messageId, "/sleep 800"],
      [expect.any(String), "echo: /sleep 800"],
    ]);
  });
});
