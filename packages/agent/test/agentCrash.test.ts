// Focused regressions for the two ways a replica's death lost an accepted message: each kills a
// replica at the worst moment for one of them and checks that a peer finishes the message exactly once.
import { SimulatedCrash, crashAfterModelAnswer, eventually, runRecords } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { InMemoryMessageQueueStore, type QueueWakeup } from "@axiom-lattice/core";
import { collect, manager, runStatus, scope, thread, tokens, useSharedStores } from "./support";

const stores = useSharedStores();

/** A wake-up that reaches nobody, so only the sweep or an explicit resume starts work. */
const lostWakeups: QueueWakeup = { notify: async () => {}, subscribe: () => () => {} };
/** Short leases: a dead replica's thread is free again within a fraction of a second. */
const shortLeases = { threadRunTtlMs: 300, claimLeaseMs: 300 };

const conversation = async (threadId: string) =>
  (await manager(stores).getAgent(thread(threadId)).getState()).messages.map((message) => message.content);

/** A replica on the shared stores that dies right after the model's next answer is stored. */
function dyingReplica() {
  const crash = new SimulatedCrash();
  const replica = manager(
    { ...stores, queue: crash.wrap(stores.queue), leases: crash.wrap(stores.leases), checkpointer: crashAfterModelAnswer(stores.checkpointer, crash) },
    { wakeup: lostWakeups, ...shortLeases },
  );
  return { crash, agent: replica.getAgent(thread("t1")) };
}

/** A peer that picks the dead replica's message up on its sweep; settles with the message's stream. */
function peerFinishing(messageId: string) {
  const peer = manager(stores, { wakeup: lostWakeups, ...shortLeases });
  const agent = peer.getAgent(thread("t1"));
  const chunks = collect(agent.chunkStream(messageId));
  peer.startQueueSweep({ intervalMs: 50 });
  return { agent, chunks };
}

describe("a replica killed after the model answered, before the checkpoint", () => {
  it("leaves a peer to finish the run, answering again: streamed, recorded once, kept for the next turn", async () => {
    const dying = dyingReplica();
    const { messageId } = await dying.agent.addMessage({ message: "remember me" });
    await eventually("the replica to die", () => dying.crash.killed, { timeoutMs: 3_000 });

    const peer = peerFinishing(messageId);
    const chunks = await peer.chunks;
    expect(tokens(chunks).join("")).toBe("echo: remember me");
    expect(chunks.at(-1)).toMatchObject({ type: "message_completed" });
    expect(await runStatus(stores, messageId)).toBe("success");

    await (await peer.agent.addMessage({ message: "next turn" }, { mode: "wait" })).completion;
    expect(await conversation("t1")).toEqual(["remember me", "echo: remember me", "next turn", "echo: next turn"]);
  });

  it("does the same for a resumed interrupt, which is not refused as having nothing to resume", async () => {
    const asking = manager(stores, { wakeup: lostWakeups });
    const asked = await asking.getAgent(thread("t1")).addMessage({ message: "/interrupt Sure?" }, { mode: "wait" });
    expect((await asked.completion).status).toBe("interrupted");
    // Gone quietly (thread lease released), so the resume below runs on the dying replica.
    await asking.shutdown();
    const dying = dyingReplica();
    const { messageId } = await dying.agent.addMessage({}, { command: { resume: "yes" } });
    await eventually("the replica to die", () => dying.crash.killed, { timeoutMs: 3_000 });

    const chunks = await peerFinishing(messageId).chunks;
    expect(tokens(chunks).join("")).toBe("ask_human returned: yes");
    expect(await runStatus(stores, messageId)).toBe("success");
    expect(await conversation("t1")).toEqual(["/interrupt Sure?", "", "yes", "ask_human returned: yes"]);
  });
});

describe("a replica killed during a run from an earlier checkpoint (a fork)", () => {
  it("leaves a peer to go on along the fork it began, not to fork again", async () => {
    const first = manager(stores, { wakeup: lostWakeups });
    const agent = first.getAgent(thread("t1"));
    await (await agent.addMessage({ message: "first" }, { mode: "wait" })).completion;
    const forkPoint = (await agent.stateSnapshot()).config.configurable!.checkpoint_id as string;
    await (await agent.addMessage({ message: "second" }, { mode: "wait" })).completion;
    await first.shutdown();

    const dying = dyingReplica();
    const { messageId } = await dying.agent.addMessage({ message: "instead" }, { graph: { checkpointId: forkPoint } });
    await eventually("the replica to die", () => dying.crash.killed, { timeoutMs: 3_000 });
    const chunks = await peerFinishing(messageId).chunks;
    expect(chunks.at(-1)).toMatchObject({ type: "message_completed" });
    expect(await conversation("t1")).toEqual(["first", "echo: first", "instead", "echo: instead"]);
    // One branch holds the input: the peer went on from the dead attempt's checkpoint.
    const history = await manager(stores).getAgent(thread("t1")).stateHistory({ limit: 100 });
    const inputCheckpoints = history.filter((snapshot) => (snapshot.values.messages as Array<{ content: string }>).at(-1)?.content === "instead");
    expect(inputCheckpoints).toHaveLength(1);
  });
});

describe("a dead replica's claim that outlives its thread-run lease", () => {
  it("is taken back by the next lease holder before anything newer runs: per-thread order holds", async () => {
    const first = await stores.queue.addMessage({ threadId: "t1", scope, content: { message: "first" } });
    const second = await stores.queue.addMessage({ threadId: "t1", scope, content: { message: "second" } });
    // The dead replica's lease is gone, but its claim of `first` has most of its time left.
    await stores.queue.claimPendingMessages({ ...scope, threadId: "t1" }, { owner: "dead-replica#1", leaseMs: 60_000 });

    const agent = manager(stores, { wakeup: lostWakeups }).getAgent(thread("t1"));
    expect(await agent.resumeTask()).toEqual({ status: "idle", leaseContended: false });
    expect((await runRecords(stores.queue, { ...scope, threadId: "t1" })).map((run) => [run.id, run.runStatus])).toEqual([
      [first.id, "success"],
      [second.id, "success"],
    ]);
    expect(await conversation("t1")).toEqual(["first", "echo: first", "second", "echo: second"]);
  });
});

/** Refuses the first claim renewal, as when a claim lapsed (its renewals failed) while the lease held. */
class QueueLapsingFirstClaim extends InMemoryMessageQueueStore {
  lapsed = false;

  override async renewClaim(ids: string[], owner: string, leaseMs: number): Promise<number> {
    if (this.lapsed) return super.renewClaim(ids, owner, leaseMs);
    this.lapsed = true;
    return 0;
  }
}

describe("a claim that lapsed while its replica still held the thread", () => {
  it("is taken back, and its message finished, before anything newer runs", async () => {
    const queue = new QueueLapsingFirstClaim({ fences: stores.leases, leases: stores.leases });
    const agent = manager({ ...stores, queue }, { wakeup: lostWakeups, ...shortLeases }).getAgent(thread("t1"));
    const first = await agent.addMessage({ message: "/sleep 400" });
    const second = await agent.addMessage({ message: "second" });

    await eventually("both messages to finish", async () => (await runRecords(queue, { ...scope, threadId: "t1" })).length === 2, { timeoutMs: 5_000 });
    expect(queue.lapsed).toBe(true);
    expect((await runRecords(queue, { ...scope, threadId: "t1" })).map((run) => [run.id, run.runStatus])).toEqual([
      [first.messageId, "success"],
      [second.messageId, "success"],
    ]);
    expect(await conversation("t1")).toEqual(["/sleep 400", "echo: /sleep 400", "second", "echo: second"]);
  });
});
