// What a run asks of its checkpoint saver: the thread's latest checkpoint read once a tenure, and
// each step stored in one write, its tasks' pending writes with it.
import type { QueueWakeup } from "@axiom-lattice/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { InMemoryCheckpointSaver } from "../src";
import { manager, sharedStores, thread } from "./support";

/** The in-memory saver, counting the calls that would each be a transaction on PostgreSQL. */
class CountingSaver extends InMemoryCheckpointSaver {
  readonly calls = { getTuple: 0, putUnderFence: 0, putWritesUnderFence: 0 };
  /** How long each checkpoint takes to store, as on a database (0: at once). */
  putDelayMs = 0;

  override getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    this.calls.getTuple++;
    return super.getTuple(config);
  }

  override async putUnderFence(...args: Parameters<InMemoryCheckpointSaver["putUnderFence"]>): ReturnType<InMemoryCheckpointSaver["putUnderFence"]> {
    this.calls.putUnderFence++;
    if (this.putDelayMs > 0) await sleep(this.putDelayMs);
    return super.putUnderFence(...args);
  }

  override putWritesUnderFence(...args: Parameters<InMemoryCheckpointSaver["putWritesUnderFence"]>): ReturnType<InMemoryCheckpointSaver["putWritesUnderFence"]> {
    this.calls.putWritesUnderFence++;
    return super.putWritesUnderFence(...args);
  }

  reset(): void {
    this.calls.getTuple = this.calls.putUnderFence = this.calls.putWritesUnderFence = 0;
  }
}

/** A wake-up that reaches nobody: a queued message waits until the test starts the thread's tenure. */
const lostWakeups: QueueWakeup = { notify: async () => {}, subscribe: () => () => {} };

async function replicaCounting() {
  const stores = await sharedStores();
  const saver = new CountingSaver(stores.leases);
  const replica = manager({ ...stores, checkpointer: saver }, { wakeup: lostWakeups });
  return { saver, agent: replica.getAgent(thread("t1")) };
}

const contents = (messages: Array<{ content: unknown }>) => messages.map((message) => message.content);

describe("a run's checkpoint traffic", () => {
  it("a plain run reads the thread's checkpoint once and stores its three checkpoints in two writes (its input's with its first step's)", async () => {
    const { saver, agent } = await replicaCounting();
    await (await agent.addMessage({ message: "first" }, { mode: "wait" })).completion;
    saver.reset();

    await agent.addMessage({ message: "second" });
    expect(await agent.resumeTask()).toEqual({ status: "idle", leaseContended: false });
    // One read by the run, one by `resumeTask` for the thread's status once it is done.
    expect(saver.calls).toEqual({ getTuple: 2, putUnderFence: 2, putWritesUnderFence: 0 });
    expect(contents((await agent.getState()).messages)).toEqual(["first", "echo: first", "second", "echo: second"]);
  });

  it("the runs of one tenure read it once between them, and each sees what the one before left", async () => {
    const { saver, agent } = await replicaCounting();
    await agent.addMessage({ message: "one" });
    await agent.addMessage({ message: "two" });
    await agent.addMessage({ message: "three" });

    expect(await agent.resumeTask()).toEqual({ status: "idle", leaseContended: false });
    // One read by the tenure's three runs, one by `resumeTask` for the thread's status.
    expect(saver.calls.getTuple).toBe(2);
    expect(contents((await agent.getState()).messages)).toEqual(["one", "echo: one", "two", "echo: two", "three", "echo: three"]);
  });

  it("an interrupt's writes, which no checkpoint follows, are stored when the graph stops, and the resume reads them", async () => {
    const { saver, agent } = await replicaCounting();
    const asked = await agent.addMessage({ message: "/interrupt Sure?" }, { mode: "wait" });
    expect(await asked.completion).toMatchObject({ status: "interrupted", interrupts: [{ value: "Sure?" }] });
    expect(saver.calls.putWritesUnderFence).toBe(1);
    expect((await agent.getState()).interrupts).toMatchObject([{ value: "Sure?" }]);

    const resumed = await agent.addMessage({}, { command: { resume: "yes" }, mode: "wait" });
    expect(await resumed.completion).toMatchObject({ status: "success" });
    expect((await agent.getState()).interrupts).toEqual([]);
  });

  it("with checkpoints slow to store, a step's writes still wait for their own checkpoint: the run still ends interrupted", async () => {
    // The steps outrun the checkpoints: the interrupt is written while the checkpoint before its
    // step's is still being stored.
    const { saver, agent } = await replicaCounting();
    saver.putDelayMs = 30;
    const asked = await agent.addMessage({ message: "/interrupt Sure?" }, { mode: "wait" });
    expect(await asked.completion).toMatchObject({ status: "interrupted", interrupts: [{ value: "Sure?" }] });
    const resumed = await agent.addMessage({}, { command: { resume: "yes" }, mode: "wait" });
    expect(contents((await resumed.completion).messages)).toEqual(expect.arrayContaining(["yes"]));
  });
});
