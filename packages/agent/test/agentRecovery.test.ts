import { eventually, runRecords } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import {
  type ClaimMessagesOptions,
  type CompletedAndClaimed,
  type TakenBackAndClaimed,
  InMemoryMessageQueueStore,
  type PendingMessage,
  type ThreadQueueRef,
  type QueueWakeup,
  type RunOutcome,
  tryAcquireThreadRun,
} from "@axiom-lattice/core";
import { collect, manager, quietLogger, runStatus, scope, thread, useSharedStores } from "./support";

const stores = useSharedStores();

/** A wake-up that reaches nobody: the notification was lost, or its replica is gone. */
const lostWakeups: QueueWakeup = { notify: async () => {}, subscribe: () => () => {} };

const enqueueDirectly = (threadId: string, message: string) =>
  stores.queue.addMessage({ threadId, scope, content: { message } });

describe("queue sweep", () => {
  it("picks up a message whose enqueuing replica died before waking anyone", async () => {
    const replica = manager(stores, { wakeup: lostWakeups });
    replica.startQueueSweep({ intervalMs: 100 });
    const { id } = await enqueueDirectly("orphan-thread", "anyone there?");

    await eventually("the sweep to run the message", async () => (await runStatus(stores, id)) === "success", { timeoutMs: 3_000 });
  });

  it("finishes a message whose runner crashed, once its claim expired", async () => {
    const { id } = await enqueueDirectly("crashed-thread", "take two");
    // The crashed replica claimed it and never came back (no thread-run lease left either).
    await stores.queue.claimPendingMessages({ ...scope, threadId: "crashed-thread" }, { owner: "dead-replica#1", leaseMs: 100 });
    manager(stores, { wakeup: lostWakeups }).startQueueSweep({ intervalMs: 100 });

    await eventually("the sweep to reclaim and run the message", async () => (await runStatus(stores, id)) === "success", { timeoutMs: 3_000 });
  });
});

/** Calls `onEmptyClaim` the first time a claim (alone, after a take-back, or after a completion) finds the thread's queue empty. */
class QueueWithEmptyClaimHook extends InMemoryMessageQueueStore {
  onEmptyClaim: (() => Promise<void>) | undefined;

  override async claimPendingMessages(thread: ThreadQueueRef, options: ClaimMessagesOptions): Promise<PendingMessage[]> {
    const claimed = await super.claimPendingMessages(thread, options);
    await this.afterClaim(claimed);
    return claimed;
  }

  override async takeBackAndClaim(thread: ThreadQueueRef, options: ClaimMessagesOptions): Promise<TakenBackAndClaimed> {
    const answer = await super.takeBackAndClaim(thread, options);
    await this.afterClaim(answer.claimed);
    return answer;
  }

  override async completeAndClaimNext(thread: ThreadQueueRef, id: string, outcome: RunOutcome, options: ClaimMessagesOptions): Promise<CompletedAndClaimed> {
    const answer = await super.completeAndClaimNext(thread, id, outcome, options);
    await this.afterClaim(answer.claimed);
    return answer;
  }

  private async afterClaim(claimed: PendingMessage[] | null): Promise<void> {
    const hook = this.onEmptyClaim;
    if (claimed?.length === 0 && hook) {
      this.onEmptyClaim = undefined;
      await hook();
    }
  }
}

describe("processor", () => {
  it.each([
    ["released and looked at in one call to the queue", true],
    ["released, then looked at", false],
  ])("strands no message enqueued between its last empty claim and its lease release: %s", async (_name, joinedStores) => {
    const queue = new QueueWithEmptyClaimHook({ fences: stores.leases, leases: stores.leases });
    const shared = { ...stores, queue };
    const owner = manager(shared, { wakeup: lostWakeups, joinedStores }).getAgent(thread("t1"));
    const peer = manager(shared, { wakeup: lostWakeups, joinedStores }).getAgent(thread("t1"));
    let late: string | undefined;
    queue.onEmptyClaim = async () => {
      // The queue just looked empty to the owner, which still holds the lease: the peer's message
      // cannot start on the peer, and no wake-up or sweep will come.
      late = (await peer.addMessage({ message: "late" })).messageId;
      expect(await peer.resumeTask()).toEqual({ status: "busy", leaseContended: true });
    };

    const first = await owner.addMessage({ message: "first" }, { mode: "wait" });
    await first.completion;
    await eventually("the late message", async () => late !== undefined && (await queue.getMessage(late, scope))?.runStatus === "success", { timeoutMs: 3_000 });
  });

  it("never runs two messages of a thread at once across replicas, and runs each once, in order", async () => {
    const replicas = [manager(stores), manager(stores)];
    const threads = ["t1", "t2", "t3"];
    const sent = new Map<string, string[]>(threads.map((id) => [id, []]));
    for (let i = 0; i < 8; i++) {
      for (const threadId of threads) {
        const { messageId } = await replicas[i % 2].getAgent(thread(threadId)).addMessage({ message: `${threadId}-${i}` });
        sent.get(threadId)!.push(messageId);
      }
    }
    for (const threadId of threads) {
      await eventually(`${threadId} drained`, async () => (await runRecords(stores.queue, { ...scope, threadId })).length === 8, { timeoutMs: 10_000 });
      const runs = await runRecords(stores.queue, { ...scope, threadId });
      expect(runs.map((run) => run.id)).toEqual(sent.get(threadId));
      expect(runs.every((run) => run.runStatus === "success")).toBe(true);
      for (let i = 1; i < runs.length; i++) expect(runs[i].startedAt!.getTime()).toBeGreaterThanOrEqual(runs[i - 1].finishedAt!.getTime());
    }
  });
});

describe("following a message another replica runs", () => {
  it("streams its end from the run record, and wait mode gets the shared thread state", async () => {
    const runner = manager(stores, { wakeup: lostWakeups }).getAgent(thread("t1"));
    const watcher = manager(stores, { wakeup: lostWakeups, streamPollMs: 20 }).getAgent(thread("t1"));
    const { messageId } = await runner.addMessage({ message: "/sleep 100" });

    const [followed, waited] = await Promise.all([collect(watcher.chunkStream(messageId)), watcher.waitForRun(messageId)]);
    expect(followed).toEqual([expect.objectContaining({ messageId, type: "message_completed", data: { status: "success" } })]);
    expect(waited).toMatchObject({ messageId, status: "success", messages: [{ content: "/sleep 100" }, { content: "echo: /sleep 100" }] });
  });
});

/** Fails the first completion (alone, or with the next claim), as if the database dropped out right after the graph finished. */
class QueueFailingFirstCompletion extends InMemoryMessageQueueStore {
  failed = false;

  override async completeMessage(id: string, owner: string, outcome: RunOutcome): Promise<boolean> {
    this.failOnce();
    return super.completeMessage(id, owner, outcome);
  }

  override async completeAndClaimNext(thread: ThreadQueueRef, id: string, outcome: RunOutcome, options: ClaimMessagesOptions): Promise<CompletedAndClaimed> {
    this.failOnce();
    return super.completeAndClaimNext(thread, id, outcome, options);
  }

  private failOnce(): void {
    if (this.failed) return;
    this.failed = true;
    throw new Error("database unreachable");
  }
}

describe("resumeTask", () => {
  it("defers with leaseContended while a peer owns the thread, then runs it once the peer let go", async () => {
    const agent = manager(stores, { wakeup: lostWakeups }).getAgent(thread("t1"));
    const peerLease = await tryAcquireThreadRun(thread("t1"), { store: stores.leases, logger: quietLogger });
    const { id } = await enqueueDirectly("t1", "hello");

    expect(await agent.resumeTask()).toEqual({ status: "busy", leaseContended: true });
    expect(await runStatus(stores, id)).toBe("pending");

    await peerLease!.release();
    expect(await agent.resumeTask()).toEqual({ status: "idle", leaseContended: false });
    expect(await runStatus(stores, id)).toBe("success");
  });

  it("reclaims an expired claim and resumes from the checkpoint without answering twice", async () => {
    const queue = new QueueFailingFirstCompletion({ fences: stores.leases, leases: stores.leases });
    const agent = manager({ ...stores, queue }, { wakeup: lostWakeups, claimLeaseMs: 150 }).getAgent(thread("t1"));
    const { messageId } = await agent.addMessage({ message: "once only" });
    await eventually("the failed completion", () => queue.failed, { timeoutMs: 3_000 });
    await eventually("the claim to expire", async () => (await queue.getMessage(messageId, scope))!.leaseExpiresAt!.getTime() < Date.now(), { timeoutMs: 3_000 });

    expect(await agent.resumeTask()).toEqual({ status: "idle", leaseContended: false });
    expect(await queue.getMessage(messageId, scope)).toMatchObject({ runStatus: "success" });
    expect((await agent.getState()).messages.map((message) => message.content)).toEqual(["once only", "echo: once only"]);
  });
});
