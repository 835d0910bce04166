import { eventually } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { threadRunLeaseKey } from "@axiom-lattice/core";
import { ThreadBusyError } from "../src";
import { collect, collectUntil, manager, runStatus, scope, thread, useSharedStores } from "./support";

const stores = useSharedStores();

const running = (messageId: string) => eventually(`${messageId} running`, async () => (await runStatus(stores, messageId)) === "running", { timeoutMs: 5_000 });

describe("abort", () => {
  it("stops the current run (also mid-/sleep); the message is completed as aborted and not retried", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    expect(await agent.abort()).toBe(false);
    const { messageId, stream } = await agent.addMessage({ message: "/sleep 600000" }, { mode: "stream" });
    await running(messageId);

    expect(await agent.abort()).toBe(true);
    expect((await collect(stream)).at(-1)).toMatchObject({ type: "message_failed", data: { status: "aborted" } });
    expect(await stores.queue.getMessage(messageId, scope)).toMatchObject({ status: "completed", runStatus: "aborted" });
    expect(await stores.queue.getQueueSize("t1", scope)).toBe(0);

    const next = await agent.addMessage({ message: "still there?" }, { mode: "wait" });
    expect(await next.completion).toMatchObject({ status: "success" });
    expect((await stores.queue.listRuns("t1", scope)).map((run) => run.runStatus)).toEqual(["aborted", "success"]);
  });
});

describe("multitask strategies", () => {
  it("reject: THREAD_BUSY while a run is active or messages are queued; accepted once idle", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const { messageId } = await agent.addMessage({ message: "/sleep 600000" });
    await running(messageId);
    await expect(agent.addMessage({ message: "me too" }, { multitaskStrategy: "reject" })).rejects.toThrow(ThreadBusyError);
    await expect(agent.addMessage({ message: "me too" }, { multitaskStrategy: "reject" })).rejects.toMatchObject({ code: "THREAD_BUSY" });
    expect(await stores.queue.getQueueSize("t1", scope)).toBe(1);

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
    expect((await stores.queue.listRuns("t1", scope)).map((run) => run.id)).toEqual([accepted[0].messageId]);
  });

  it("interrupt: aborts the active run, then runs the new message ahead of the queue", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const slow = await agent.addMessage({ message: "/sleep 600000" });
    await running(slow.messageId);
    const queued = await agent.addMessage({ message: "queued" });
    const urgent = await agent.addMessage({ message: "urgent" }, { multitaskStrategy: "interrupt" });
    await agent.waitForRun(queued.messageId);

    expect((await stores.queue.listRuns("t1", scope)).map((run) => [run.id, run.runStatus])).toEqual([
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
    expect((await stores.queue.listRuns("t1", scope)).map((run) => run.id)).toEqual([first.messageId, second.messageId]);
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
