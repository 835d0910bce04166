import type { MessageQueueStore, ItemStore, LeaseFence, LeaseStore, QueueScope, RunEvent, RunEventLog, RunEventRef, TaskStore } from "@axiom-lattice/protocols";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { runRecords } from "./runRecords";

/** A checkpoint's place, as LangGraph's configs name it. */
interface CheckpointPlace {
  configurable: { thread_id: string; checkpoint_ns: string; checkpoint_id?: string };
}

/** The fenced part of a LangGraph checkpoint saver (agent's `FencingCheckpointSaver`), as this suite uses it. */
export interface FencedCheckpointWriter {
  putUnderFence(
    fence: LeaseFence,
    config: CheckpointPlace,
    checkpoint: object,
    metadata: object,
    newVersions: Record<string, number>,
    /** What a run held back for the checkpoint: `{ checkpoints: [{ config, checkpoint, metadata, newVersions }], writes: [{ config, writes, taskId }] }`. */
    held?: object,
  ): Promise<unknown>;
  putWritesUnderFence(fence: LeaseFence, config: CheckpointPlace, writes: Array<[string, unknown]>, taskId: string): Promise<void>;
  getTuple(config: CheckpointPlace): Promise<{ checkpoint: { id: string }; pendingWrites?: unknown[] } | undefined>;
}

/** One replica's handles on the stores whose writes a run makes under its thread-run lease. */
export interface FencedWriteStores {
  leases: LeaseStore;
  queue: MessageQueueStore;
  runEvents: RunEventLog;
  items: ItemStore;
  tasks: TaskStore;
  checkpoints: FencedCheckpointWriter;
}

export interface FencedWritesHarness {
  /** `count` handles on one set of stores: on PostgreSQL each on a pool of its own, as replicas have. */
  open(count: number): Promise<FencedWriteStores[]>;
}

const scope: QueueScope = { tenantId: "tenant-a", assistantId: "assistant-a" };
const freshRun = (): RunEventRef => ({ tenantId: "tenant-a", assistantId: "assistant-a", threadId: fresh("thread"), messageId: fresh("message") });
const chunk = (index: number, content: string): RunEvent => ({ type: "message_chunk", data: { content }, index });
const refused = { code: "LEASE_LOST", name: "FencedOutError" };

/** A plain LangGraph checkpoint of one channel. */
const checkpoint = (id: string, messages: string[]) => ({
  v: 4,
  id,
  ts: new Date().toISOString(),
  channel_values: { messages },
  channel_versions: { messages: 1 },
  versions_seen: {},
});

/**
 * The contract of fenced writes (`FencedWriteOptions.fence`), which every store a run writes to keeps:
 * a write made under a lease's tenure is refused, with `FencedOutError` (code `LEASE_LOST`) and nothing
 * written, once that lease has a newer tenure, whatever the timing. One suite for all of them, run on
 * the in-memory stores (judged by the in-memory lease store) and on PostgreSQL's.
 */
export function fencedWritesContract(name: string, harness: FencedWritesHarness): void {
  describe(`fenced writes contract: ${name}`, () => {
    let replicas: FencedWriteStores[];
    let old: FencedWriteStores;
    let successor: FencedWriteStores;
    beforeAll(async () => {
      replicas = await harness.open(4);
      [old, successor] = replicas as [FencedWriteStores, FencedWriteStores];
    });

    /** A lease whose first tenure (on `old`) lapsed and was taken over (on `successor`): the fences of both. */
    async function takenOver(): Promise<{ stale: LeaseFence; current: LeaseFence }> {
      const key = fresh("thread-run");
      const first = await old.leases.acquire(key, "paused#1", 20);
      await sleep(60);
      const second = await successor.leases.acquire(key, "peer#1", 60_000);
      if (!first || !second) throw new Error("the takeover did not happen");
      return { stale: { key, token: first.token }, current: { key, token: second.token } };
    }

    it("the run event log refuses a stale tenure's append and logs none of it", async () => {
      const { stale, current } = await takenOver();
      const run = freshRun();
      await expect(old.runEvents.append(run, [chunk(0, "late")], { fence: stale })).rejects.toMatchObject(refused);
      expect(await successor.runEvents.read(run, -1, 10)).toEqual([]);
      await successor.runEvents.append(run, [chunk(0, "peer")], { fence: current });
      await expect(old.runEvents.append(run, [chunk(1, "late")], { fence: stale })).rejects.toMatchObject(refused);
      expect(await successor.runEvents.read(run, -1, 10)).toEqual([chunk(0, "peer")]);
    });

    it("the queue refuses a stale tenure's claim, reset and take-back, and leaves its messages as they were", async () => {
      const { stale, current } = await takenOver();
      const threadId = fresh("thread");
      const added = await successor.queue.addMessage({ threadId, scope, content: { text: "hello" } });
      await expect(old.queue.claimPendingMessages({ ...scope, threadId }, { owner: "paused#1", leaseMs: 60_000, fence: stale })).rejects.toMatchObject(refused);
      expect(await successor.queue.getMessage(added.id, scope)).toMatchObject({ status: "pending" });

      const [claimed] = await successor.queue.claimPendingMessages({ ...scope, threadId }, { owner: "peer#1", leaseMs: 60_000, fence: current });
      expect(claimed?.id).toBe(added.id);
      await expect(old.queue.resetProcessingToPending({ ...scope, threadId }, { fence: stale })).rejects.toMatchObject(refused);
      expect(await successor.queue.getMessage(added.id, scope)).toMatchObject({ status: "processing", lockedBy: "peer#1" });
      await expect(old.queue.takeBackAndClaim({ ...scope, threadId }, { owner: "paused#1", leaseMs: 60_000, fence: stale })).rejects.toMatchObject(refused);
      expect(await successor.queue.getMessage(added.id, scope)).toMatchObject({ status: "processing", lockedBy: "peer#1" });
      expect(await successor.queue.resetProcessingToPending({ ...scope, threadId }, { fence: current })).toBe(1);
      expect(await successor.queue.takeBackAndClaim({ ...scope, threadId }, { owner: "peer#2", leaseMs: 60_000, fence: current })).toMatchObject({ reclaimed: 0, claimed: [{ id: added.id, lockedBy: "peer#2" }] });
    });

    it("the queue's complete-and-claim of a stale tenure records a claim it still held, as completion does, and claims nothing", async () => {
      const threadId = fresh("thread");
      const thread = { ...scope, threadId };
      const first = await successor.queue.addMessage({ threadId, scope, content: { text: "first" } });
      const second = await successor.queue.addMessage({ threadId, scope, content: { text: "second" } });
      // Claimed before the takeover, and not yet taken back by the successor: the claim is still its owner's.
      await old.queue.claimPendingMessages(thread, { owner: "paused#1", leaseMs: 60_000 });
      const { stale, current } = await takenOver();
      const late = { owner: "paused#1", leaseMs: 60_000, fence: stale };
      expect(await old.queue.completeAndClaimNext(thread, first.id, { status: "success" }, late)).toEqual({ completed: true, claimed: null });
      expect(await successor.queue.getMessage(second.id, scope)).toMatchObject({ status: "pending" });

      const [claimed] = await successor.queue.claimPendingMessages(thread, { owner: "peer#1", leaseMs: 60_000, fence: current });
      expect(claimed?.id).toBe(second.id);
      expect(await old.queue.completeAndClaimNext(thread, second.id, { status: "error" }, late)).toEqual({ completed: false, claimed: null });
      expect(await successor.queue.getMessage(second.id, scope)).toMatchObject({ status: "processing", lockedBy: "peer#1" });
    });

    it("the item store refuses a stale tenure's put and delete", async () => {
      const { stale, current } = await takenOver();
      const tenant = fresh("tenant");
      await expect(old.items.put(tenant, ["notes"], "k", { v: "late" }, { fence: stale })).rejects.toMatchObject(refused);
      expect(await successor.items.get(tenant, ["notes"], "k")).toBeNull();
      await successor.items.put(tenant, ["notes"], "k", { v: "peer" }, { fence: current });
      await expect(old.items.delete(tenant, ["notes"], "k", { fence: stale })).rejects.toMatchObject(refused);
      expect(await successor.items.get(tenant, ["notes"], "k")).toMatchObject({ value: { v: "peer" } });
      expect(await successor.items.delete(tenant, ["notes"], "k", { fence: current })).toBe(true);
    });

    it("the task store refuses a stale tenure's settlement, however it is written", async () => {
      const { stale, current } = await takenOver();
      const tenant = fresh("tenant");
      const task = await successor.tasks.createTask(tenant, { ownerType: "agent", ownerId: "writer", title: "Summarise", priority: 0, status: "in_progress" });
      const snapshot = { status: task.status, updatedAt: task.updatedAt };
      await expect(old.tasks.updateTask(tenant, task.id, { status: "completed" }, { fence: stale })).rejects.toMatchObject(refused);
      await expect(old.tasks.updateIfSnapshot(tenant, task.id, snapshot, { status: "completed" }, { fence: stale })).rejects.toMatchObject(refused);
      await expect(old.tasks.updateIfStatusIn(tenant, task.id, ["in_progress"], { status: "completed" }, { fence: stale })).rejects.toMatchObject(refused);
      expect(await successor.tasks.getTask(tenant, task.id)).toMatchObject({ status: "in_progress", updatedAt: task.updatedAt });
      expect(await successor.tasks.updateIfSnapshot(tenant, task.id, snapshot, { status: "completed" }, { fence: current })).toMatchObject({ status: "completed" });
    });

    it("the checkpoint saver refuses a stale tenure's checkpoint and pending writes", async () => {
      const { stale, current } = await takenOver();
      const thread = { configurable: { thread_id: fresh("thread"), checkpoint_ns: "" } };
      const put = (writer: FencedWriteStores, fence: LeaseFence, id: string, messages: string[]) =>
        writer.checkpoints.putUnderFence(fence, thread, checkpoint(id, messages), { source: "loop", step: 0, parents: {} }, { messages: 1 });
      await expect(put(old, stale, "1", ["late"])).rejects.toMatchObject(refused);
      expect(await successor.checkpoints.getTuple(thread)).toBeUndefined();

      await put(successor, current, "2", ["peer"]);
      const at = { configurable: { ...thread.configurable, checkpoint_id: "2" } };
      await expect(put(old, stale, "3", ["late"])).rejects.toMatchObject(refused);
      await expect(old.checkpoints.putWritesUnderFence(stale, at, [["messages", ["late"]]], "task-1")).rejects.toMatchObject(refused);
      const latest = await successor.checkpoints.getTuple(thread);
      expect(latest?.checkpoint.id).toBe("2");
      expect(latest?.pendingWrites ?? []).toEqual([]);
      await successor.checkpoints.putWritesUnderFence(current, at, [["messages", ["peer"]]], "task-1");
      expect((await successor.checkpoints.getTuple(thread))?.pendingWrites).toHaveLength(1);
    });

    it("the checkpoint saver stores a checkpoint with what was held back for it (an earlier checkpoint, writes) together, or nothing under a stale tenure", async () => {
      const { stale, current } = await takenOver();
      const thread = { configurable: { thread_id: fresh("thread"), checkpoint_ns: "" } };
      const metadata = { source: "loop", step: 0, parents: {} };
      await successor.checkpoints.putUnderFence(current, thread, checkpoint("1", ["peer"]), metadata, { messages: 1 });
      const at = (id: string) => ({ configurable: { ...thread.configurable, checkpoint_id: id } });
      const held = (content: string) => ({
        checkpoints: [{ config: at("1"), checkpoint: checkpoint("2", ["peer", content]), metadata: { source: "input", step: -1, parents: {} }, newVersions: { messages: 2 } }],
        writes: [
          { config: at("2"), writes: [["messages", [content]]] as Array<[string, unknown]>, taskId: "task-1" },
          { config: at("2"), writes: [["messages", [`${content} too`]]] as Array<[string, unknown]>, taskId: "task-2" },
        ],
      });

      await expect(old.checkpoints.putUnderFence(stale, at("2"), checkpoint("3", ["late"]), metadata, { messages: 3 }, held("late"))).rejects.toMatchObject(refused);
      expect((await successor.checkpoints.getTuple(thread))?.checkpoint.id).toBe("1");
      expect(await successor.checkpoints.getTuple(at("2"))).toBeUndefined();

      await successor.checkpoints.putUnderFence(current, at("2"), checkpoint("3", ["peer", "answer", "answer too"]), metadata, { messages: 3 }, held("answer"));
      expect((await successor.checkpoints.getTuple(thread))?.checkpoint.id).toBe("3");
      const earlier = await successor.checkpoints.getTuple(at("2"));
      expect(earlier?.checkpoint.id).toBe("2");
      expect(earlier?.pendingWrites).toEqual(
        expect.arrayContaining([
          ["task-1", "messages", ["answer"]],
          ["task-2", "messages", ["answer too"]],
        ]),
      );
    });

    it("takes a fence for a tenure until the next one begins: a lapsed lease nobody took still writes; a key never leased does not", async () => {
      const key = fresh("thread-run");
      const lapsed = await old.leases.acquire(key, "slow#1", 20);
      await sleep(60);
      const run = freshRun();
      await old.runEvents.append(run, [chunk(0, "slow")], { fence: { key, token: lapsed!.token } });
      expect(await successor.runEvents.read(run, -1, 10)).toEqual([chunk(0, "slow")]);
      await expect(old.runEvents.append(run, [chunk(1, "never")], { fence: { key: fresh("never-leased"), token: lapsed!.token } })).rejects.toMatchObject(refused);
      await expect(old.runEvents.append(run, [chunk(1, "bad")], { fence: { key, token: "first" } })).rejects.toMatchObject({ code: "INVALID_LEASE_ARGUMENT" });
      expect(await successor.runEvents.lastIndex(run)).toBe(0);
    });

    it("4 replicas racing for a thread's lease, each completing and claiming on past its lease's end: every message completed once, in queue order", async () => {
      const key = fresh("thread-run");
      const threadId = fresh("thread");
      const thread = { ...scope, threadId };
      const queued: string[] = [];
      for (let n = 0; n < 60; n += 1) queued.push((await successor.queue.addMessage({ threadId, scope, content: { n } })).id);
      const completions: string[] = [];
      let tenures = 0;
      let fencedOut = 0;
      await Promise.all(
        replicas.map(async (replica, n) => {
          while (completions.length < queued.length) {
            const lease = await replica.leases.acquire(key, `racer-${n}#1`, 15);
            if (!lease) {
              await sleep(1);
              continue;
            }
            tenures += 1;
            // As the runtime's thread processor, except that it never renews nor looks at the clock:
            // only the fence (and the claim's owner) stop a tenure that outlived its lease.
            const fence = { key, token: lease.token };
            const options = { owner: `racer-${n}#${lease.token}`, leaseMs: 60_000, fence };
            try {
              let [message] = (await replica.queue.takeBackAndClaim(thread, options)).claimed;
              while (message) {
                await sleep(Math.random() * 6);
                const { completed, claimed } = await replica.queue.completeAndClaimNext(thread, message.id, { status: "success" }, options);
                if (completed) completions.push(message.id);
                if (claimed === null) {
                  fencedOut += 1;
                  break;
                }
                [message] = claimed;
              }
            } catch (error) {
              if ((error as { code?: string }).code !== "LEASE_LOST") throw error;
              fencedOut += 1;
            }
          }
        }),
      );

      expect(completions).toEqual(queued);
      expect((await runRecords(successor.queue, thread)).map((run) => run.id).sort()).toEqual([...queued].sort());
      // The race was real: the thread changed hands many times, and late tenures were turned away.
      expect(tenures).toBeGreaterThanOrEqual(5);
      expect(fencedOut).toBeGreaterThanOrEqual(4);
    });

    it("4 replicas racing for one lease, each writing on past its lease's end: no old tenure's write lands after a newer one's", async () => {
      const key = fresh("thread-run");
      const run = freshRun();
      const target = 160;
      let written = 0;
      let fencedOut = 0;
      await Promise.all(
        replicas.map(async (replica, n) => {
          while (written < target) {
            const lease = await replica.leases.acquire(key, `racer-${n}#1`, 15);
            if (!lease) {
              await sleep(1);
              continue;
            }
            // The racer never renews and never looks at the clock: only the fence stops its writes.
            while (written < target) {
              const next = (await replica.runEvents.lastIndex(run)) + 1;
              await sleep(Math.random() * 6);
              try {
                await replica.runEvents.append(run, [chunk(next, lease.token)], { fence: { key, token: lease.token } });
                written += 1;
              } catch (error) {
                if ((error as { code?: string }).code !== "LEASE_LOST") throw error;
                fencedOut += 1;
                break;
              }
            }
          }
        }),
      );

      const tokens = (await successor.runEvents.read(run, -1, 10_000)).map((event) => BigInt((event.data as { content: string }).content));
      const backwards = tokens.filter((token, index) => index > 0 && token < tokens[index - 1]!);
      expect(backwards).toEqual([]);
      // The race was real: the lease changed hands many times, and late writers were turned away.
      expect(new Set(tokens).size).toBeGreaterThanOrEqual(5);
      expect(fencedOut).toBeGreaterThanOrEqual(4);
    });
  });
}
