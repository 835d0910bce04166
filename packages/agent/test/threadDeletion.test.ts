import { eventually, runRecords } from "@axiom-lattice/testing";
import { beforeEach, describe, expect, it } from "vitest";
import {
  InMemoryMessageQueueStore,
  InMemoryThreadStore,
  type ThreadQueueRef,
  type QueueWakeup,
  tryAcquireThreadRun,
} from "@axiom-lattice/core";
import { type AgentInstanceManager, ThreadBusyError } from "../src";
import { ASSISTANT, TENANT, collect, manager, quietLogger, scope, thread, tokens, useSharedStores } from "./support";

const stores = useSharedStores();
let threads: InMemoryThreadStore;

beforeEach(async () => {
  threads = new InMemoryThreadStore();
  await threads.createThread(TENANT, { id: "t1", assistantId: ASSISTANT });
});

/** A replica of the test: its own runtime and buffers on the shared stores, told of no peer's work. */
const replica = (queue = stores.queue) => manager({ ...stores, queue }, { threads, wakeup: lostWakeups });

const lostWakeups: QueueWakeup = { notify: async () => {}, subscribe: () => () => {} };

/** Waits until the replica's processor of the thread let go of it (lease released). */
const idle = (runtime: AgentInstanceManager) => eventually("the processor to let go", () => runtime.stats().activeThreads === 0);

const notFound = [expect.objectContaining({ type: "error", data: expect.objectContaining({ code: "MESSAGE_NOT_FOUND" }) })];

/** The thread's messages of every status, as the store holds them. */
const storedMessages = async (threadId: string) => [
  ...(await stores.queue.getPendingMessages({ ...scope, threadId })),
  ...(await stores.queue.getProcessingMessages({ ...scope, threadId })),
  ...(await runRecords(stores.queue, { ...scope, threadId })),
];

describe("deleteThread", () => {
  it("deletes the thread's messages of every status, its checkpoints, its buffers and its record", async () => {
    const runtime = replica();
    const agent = runtime.getAgent(thread("t1"));
    const { messageId, completion } = await agent.addMessage({ message: "remember me" }, { mode: "wait" });
    await completion;
    await idle(runtime);
    // Left by a replica that died: one message it claimed, one it queued without waking anyone.
    await stores.queue.addMessage({ threadId: "t1", scope, content: { message: "claimed" } });
    await stores.queue.claimPendingMessages({ ...scope, threadId: "t1" }, { owner: "dead-replica#1", leaseMs: 60_000 });
    await stores.queue.addMessage({ threadId: "t1", scope, content: { message: "pending" } });
    expect(await storedMessages("t1")).toHaveLength(3);
    expect(runtime.stats().bufferedMessages).toBe(1);

    await runtime.deleteThread(thread("t1"));

    expect(await storedMessages("t1")).toEqual([]);
    expect((await agent.getState()).messages).toEqual([]);
    expect(runtime.stats().bufferedMessages).toBe(0);
    expect(await threads.getThread(TENANT, "t1")).toBeNull();
    expect(await collect(agent.chunkStream(messageId))).toEqual(notFound);
    // The lease was given back: the thread can run again.
    await threads.createThread(TENANT, { id: "t1", assistantId: ASSISTANT });
    expect(await (await agent.addMessage({ message: "fresh" }, { mode: "wait" })).completion).toMatchObject({
      status: "success",
      messages: [{ content: "fresh" }, { content: "echo: fresh" }],
    });
  });

  it("refuses with THREAD_BUSY while a peer holds the run lease, even before it claimed anything, and deletes nothing", async () => {
    const runtime = replica();
    const { completion } = await runtime.getAgent(thread("t1")).addMessage({ message: "done before" }, { mode: "wait" });
    await completion;
    await idle(runtime);
    const queued = await stores.queue.addMessage({ threadId: "t1", scope, content: { message: "about to be claimed" } });
    const peer = await tryAcquireThreadRun(thread("t1"), { store: stores.leases, logger: quietLogger });

    await expect(runtime.deleteThread(thread("t1"))).rejects.toBeInstanceOf(ThreadBusyError);
    await expect(runtime.deleteThread(thread("t1"))).rejects.toMatchObject({ code: "THREAD_BUSY", message: expect.stringContaining("run in progress") });
    expect((await storedMessages("t1")).map((message) => message.id)).toContain(queued.id);
    expect(await storedMessages("t1")).toHaveLength(2);
    expect((await runtime.getAgent(thread("t1")).getState()).messages).toHaveLength(2);
    expect(await threads.getThread(TENANT, "t1")).not.toBeNull();

    await peer!.release();
    await runtime.deleteThread(thread("t1"));
    expect(await storedMessages("t1")).toEqual([]);
  });

  it("keeps the record when a step fails, so that deleting again finishes the job", async () => {
    const queue = new QueueFailingFirstThreadDelete({ fences: stores.leases, leases: stores.leases });
    const runtime = replica(queue);
    const { completion } = await runtime.getAgent(thread("t1")).addMessage({ message: "kept until retried" }, { mode: "wait" });
    await completion;

    await expect(runtime.deleteThread(thread("t1"))).rejects.toThrow("database unreachable");
    expect(await threads.getThread(TENANT, "t1")).not.toBeNull();

    await runtime.deleteThread(thread("t1"));
    expect(await runRecords(queue, { ...scope, threadId: "t1" })).toEqual([]);
    expect((await runtime.getAgent(thread("t1")).getState()).messages).toEqual([]);
    expect(await threads.getThread(TENANT, "t1")).toBeNull();
  });

  it("leaves no peer replaying a deleted message from its memory, also when its id is used again", async () => {
    const [runner, deleter] = [replica(), replica()];
    const onRunner = runner.getAgent(thread("t1"));
    const { messageId, completion } = await onRunner.addMessage({ message: "old answer" }, { mode: "wait", messageId: "reused-id" });
    await completion;

    await deleter.deleteThread(thread("t1"));
    // The runner's buffer of the deleted message is still in its memory; nothing told it.
    expect(runner.stats().bufferedMessages).toBe(1);
    expect(await collect(onRunner.chunkStream(messageId))).toEqual(notFound);

    await threads.createThread(TENANT, { id: "t1", assistantId: ASSISTANT });
    const again = await deleter.getAgent(thread("t1")).addMessage({ message: "new answer" }, { mode: "wait", messageId: "reused-id" });
    await again.completion;
    const followed = await collect(onRunner.chunkStream("reused-id"));
    expect(tokens(followed).join("")).not.toContain("old");
    expect(followed).toEqual([expect.objectContaining({ type: "message_completed" })]);
  });
});

/** Fails the first thread delete, as if the database dropped out part-way through deleting a thread. */
class QueueFailingFirstThreadDelete extends InMemoryMessageQueueStore {
  private failed = false;

  override async deleteThreadMessages(thread: ThreadQueueRef): Promise<number> {
    if (!this.failed) {
      this.failed = true;
      throw new Error("database unreachable");
    }
    return super.deleteThreadMessages(thread);
  }
}
