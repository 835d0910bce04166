import type { AddMessageParams, MessageQueueStore, PendingMessage, QueueScope, ThreadQueueRef } from "@axiom-lattice/protocols";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { forgedCursors, walkPages } from "./pageWalk";
import { runRecords } from "./runRecords";

export interface MessageQueueStoreHarness {
  /**
   * `count` handles onto one queue store with the given capacity (default: the store's own). A
   * database store gives each handle its own connection pool, so races between handles are real; an
   * in-memory store returns one instance `count` times.
   */
  open(count: number, options?: { capacity?: number }): Promise<MessageQueueStore[]>;
}

const freshThread = () => fresh("queue-contract");
const scope: QueueScope = { tenantId: "tenant-a", assistantId: "assistant-a" };
const content = (n: number) => ({ text: `message ${n}` });
const ids = (messages: PendingMessage[]) => messages.map((message) => message.id);

/** Adds `count` messages to the thread one after another; returns their ids in enqueue order. */
async function fill(store: MessageQueueStore, threadId: string, count: number, at: QueueScope = scope): Promise<string[]> {
  const added: string[] = [];
  for (let n = 0; n < count; n += 1) added.push((await store.addMessage({ threadId, scope: at, content: content(n) })).id);
  return added;
}

/** Adds through add path `path % 3` (if-capacity, tail, head); a full queue answers `null` on every path. */
function addOrNull(store: MessageQueueStore, path: number, params: AddMessageParams): Promise<PendingMessage | null> {
  if (path % 3 === 0) return store.addMessageIfCapacity(params);
  const add = path % 3 === 1 ? store.addMessage(params) : store.addMessageAtHead(params);
  return add.catch((error: { code?: string }) => {
    if (error.code !== "QUEUE_FULL") throw error;
    return null;
  });
}

/** Claims one message at a time until the thread is empty; returns the claimed ids in claim order. */
async function drain(store: MessageQueueStore, threadId: string, at: QueueScope = scope): Promise<string[]> {
  const claimed: string[] = [];
  for (;;) {
    const [message] = await store.claimPendingMessages({ ...at, threadId }, { owner: "drainer#1", leaseMs: 60_000 });
    if (!message) return claimed;
    claimed.push(message.id);
    await store.completeMessage(message.id, "drainer#1", { status: "success" });
  }
}

/**
 * The {@link MessageQueueStore} contract. Every implementation runs this same suite, so their
 * semantics cannot drift.
 */
export function messageQueueStoreContract(name: string, harness: MessageQueueStoreHarness): void {
  describe(`MessageQueueStore contract: ${name}`, () => {
    let store: MessageQueueStore;
    let peers: MessageQueueStore[];
    beforeAll(async () => {
      peers = await harness.open(4);
      store = peers[0];
    });

    /**
     * Fills `threadCount` fresh threads with `perThread` messages each (producers spread over every
     * handle), then has every handle claim on them at once: claimer `c` walks the threads from turn
     * `c * stride`, calling `visit` on each thread still open, which answers what it claimed (and ran)
     * there; nothing closes the thread for that claimer. Checks every message was claimed exactly once,
     * by more than one claimer, and every queue drained; answers the threads and each claimer's claims.
     */
    async function raceClaimers(
      threadCount: number,
      perThread: number,
      stride: number,
      visit: (claimer: MessageQueueStore, owner: string, threadId: string, turn: number) => Promise<PendingMessage[]>,
    ): Promise<{ threads: string[]; claims: PendingMessage[][] }> {
      const threads = Array.from({ length: threadCount }, freshThread);
      await Promise.all(peers.map((peer, p) => Promise.all(threads.filter((_, t) => t % peers.length === p).map((threadId) => fill(peer, threadId, perThread)))));
      const claims = await Promise.all(
        peers.map(async (claimer, c) => {
          const owner = `claimer-${c}#${c}`;
          const mine: PendingMessage[] = [];
          const open = new Set(threads);
          for (let turn = c * stride; open.size > 0; turn += 1) {
            const threadId = threads[turn % threads.length];
            if (!open.has(threadId)) continue;
            const claimed = await visit(claimer, owner, threadId, turn);
            if (claimed.length === 0) open.delete(threadId);
            mine.push(...claimed);
          }
          return mine;
        }),
      );
      const all = claims.flat().map((message) => message.id);
      expect(all.length - new Set(all).size).toBe(0);
      expect(all).toHaveLength(threads.length * perThread);
      // Contention is the point: more than one claimer must have won messages.
      expect(claims.filter((mine) => mine.length > 0).length).toBeGreaterThan(1);
      for (const threadId of threads) expect(await store.getQueueSize({ ...scope, threadId })).toBe(0);
      return { threads, claims };
    }

    it("adds messages and reads them back as stored", async () => {
      const threadId = freshThread();
      const values = [{ nested: { list: [1, "two", null] } }, "a bare string", 42, [true, false], null];
      for (const [n, value] of values.entries()) {
        const added = await store.addMessage({ id: `${threadId}-${n}`, threadId, scope, content: value });
        expect(added).toMatchObject({ id: `${threadId}-${n}`, threadId, ...scope, content: value, priority: 0, status: "pending", runStatus: "pending" });
        expect(added.sequence).toMatch(/^-?\d+$/);
        expect(added.createdAt).toBeInstanceOf(Date);
        expect(added.lockedBy).toBeUndefined();
        expect(await store.getMessage(added.id, scope)).toEqual(added);
      }
      const pending = await store.getPendingMessages({ ...scope, threadId });
      expect(pending.map((message) => message.content)).toEqual(values);
      expect(await store.getQueueSize({ ...scope, threadId })).toBe(values.length);
      expect(await store.getProcessingMessages({ ...scope, threadId })).toEqual([]);
      const generated = await store.addMessage({ threadId, scope, content: "no id given" });
      expect(generated.id).toMatch(/\S/);
      expect(BigInt(generated.sequence)).toBeGreaterThan(BigInt(pending[pending.length - 1].sequence));
    });

    it("claims by priority, then in enqueue order", async () => {
      const threadId = freshThread();
      const priorities = [0, 5, 0, 5, 1, 0];
      const added: PendingMessage[] = [];
      for (const [n, priority] of priorities.entries()) added.push(await store.addMessage({ threadId, scope, content: content(n), priority }));
      const expected = [added[1], added[3], added[4], added[0], added[2], added[5]].map((message) => message.id);
      expect(ids(await store.getPendingMessages({ ...scope, threadId }))).toEqual(expected);
      const firstTwo = await store.claimPendingMessages({ ...scope, threadId }, { owner: "claimer#1", leaseMs: 60_000, limit: 2 });
      expect(ids(firstTwo)).toEqual(expected.slice(0, 2));
      expect(firstTwo.every((message) => message.status === "processing" && message.runStatus === "running")).toBe(true);
      expect(ids(await store.getProcessingMessages({ ...scope, threadId }))).toEqual(expected.slice(0, 2));
      expect(await drain(store, threadId)).toEqual(expected.slice(2));
    });

    it("adds at the head ahead of every pending message, the latest head first", async () => {
      const threadId = freshThread();
      const [low, high] = [
        await store.addMessage({ threadId, scope, content: "low", priority: 0 }),
        await store.addMessage({ threadId, scope, content: "high", priority: 7 }),
      ];
      const head = await store.addMessageAtHead({ threadId, scope, content: "head" });
      expect(head.priority).toBe(7);
      const newerHead = await store.addMessageAtHead({ threadId, scope, content: "newer head", priority: 3 });
      const tail = await store.addMessage({ threadId, scope, content: "tail", priority: 7 });
      expect(await drain(store, threadId)).toEqual([newerHead.id, head.id, high.id, tail.id, low.id]);
    });

    it("stamps a claim with owner, lease and replica, and completes it only for the owner", async () => {
      const threadId = freshThread();
      const [id] = await fill(store, threadId, 1);
      const before = Date.now();
      expect(await store.getMessage(id, scope)).toMatchObject({ attempts: 0 });
      const [claimed] = await store.claimPendingMessages({ ...scope, threadId }, { owner: "replica-1#abc", leaseMs: 60_000 });
      expect(claimed).toMatchObject({ id, status: "processing", runStatus: "running", attempts: 1, lockedBy: "replica-1#abc", replicaId: "replica-1" });
      expect(claimed.leaseExpiresAt!.getTime()).toBeGreaterThan(before + 50_000);
      expect(claimed.lockedAt).toBeInstanceOf(Date);
      expect(claimed.startedAt).toBeInstanceOf(Date);
      expect(await store.getMessage(id, scope)).toEqual(claimed);
      expect(await store.claimPendingMessages({ ...scope, threadId }, { owner: "replica-2#def", leaseMs: 60_000 })).toEqual([]);

      expect(await store.completeMessage(id, "replica-2#def", { status: "success" })).toBe(false);
      expect(await store.completeMessage(id, "replica-1#abc", { status: "error", error: "model failed" })).toBe(true);
      expect(await store.completeMessage(id, "replica-1#abc", { status: "success" })).toBe(false);
      const [run] = await runRecords(store, { ...scope, threadId });
      expect(run).toMatchObject({ id, status: "completed", runStatus: "error", error: "model failed", replicaId: "replica-1", attempts: 1 });
      expect(run.lockedBy).toBeUndefined();
      expect(run.leaseExpiresAt).toBeUndefined();
      expect(run.finishedAt).toBeInstanceOf(Date);
      expect(await store.getQueueSize({ ...scope, threadId })).toBe(0);
    });

    it("refuses to complete a pending message", async () => {
      const threadId = freshThread();
      const [id] = await fill(store, threadId, 1);
      expect(await store.completeMessage(id, "anyone#1", { status: "success" })).toBe(false);
      expect((await store.getMessage(id, scope))?.status).toBe("pending");
    });

    it("reclaims only expired claims, back to their queue position", async () => {
      const threadId = freshThread();
      const [first, second, third] = await fill(store, threadId, 3);
      await store.claimPendingMessages({ ...scope, threadId }, { owner: "short#1", leaseMs: 150 });
      await store.claimPendingMessages({ ...scope, threadId }, { owner: "long#1", leaseMs: 60_000 });
      expect(await store.reclaimExpiredProcessing({ ...scope, threadId })).toBe(0);
      await sleep(350);
      const listed = (await store.getThreadsWithPendingMessages()).find((thread) => thread.threadId === threadId);
      // Its longest-waiting work is the pending message, queued before the 350 ms pause.
      expect(listed).toEqual({ threadId, ...scope, pendingCount: 1, expiredCount: 1, waitedMs: expect.any(Number) });
      expect(listed!.waitedMs).toBeGreaterThanOrEqual(350);

      expect(await store.reclaimExpiredProcessing({ ...scope, threadId })).toBe(1);
      expect(await store.reclaimExpiredProcessing({ ...scope, threadId })).toBe(0);
      const reclaimed = await store.getMessage(first, scope);
      expect(reclaimed).toMatchObject({ status: "pending", runStatus: "pending" });
      expect(reclaimed?.lockedBy).toBeUndefined();
      expect(reclaimed?.leaseExpiresAt).toBeUndefined();
      expect(await store.getMessage(second, scope)).toMatchObject({ status: "processing", lockedBy: "long#1" });
      expect(ids(await store.getPendingMessages({ ...scope, threadId }))).toEqual([first, third]);
    });

    it("does not let a replica complete or renew a claim that was reclaimed", async () => {
      const threadId = freshThread();
      const [id] = await fill(store, threadId, 1);
      const [a, b] = [peers[1], peers[2]];
      await a.claimPendingMessages({ ...scope, threadId }, { owner: "replica-a#1", leaseMs: 100 });
      await sleep(250);
      expect(await b.reclaimExpiredProcessing({ ...scope, threadId })).toBe(1);
      expect(await b.claimPendingMessages({ ...scope, threadId }, { owner: "replica-b#1", leaseMs: 60_000 })).toMatchObject([{ id, attempts: 2 }]);
      expect(await a.renewClaim([id], "replica-a#1", 60_000)).toBe(0);
      expect(await a.completeMessage(id, "replica-a#1", { status: "success" })).toBe(false);
      expect(await b.completeMessage(id, "replica-b#1", { status: "success" })).toBe(true);
      expect(await runRecords(store, { ...scope, threadId })).toMatchObject([{ id, runStatus: "success", replicaId: "replica-b" }]);
    });

    it("completes a claim and claims the thread's next in one step, each part with its own check", async () => {
      const threadId = freshThread();
      const thread = { ...scope, threadId };
      const [first, second, third] = await fill(store, threadId, 3);
      const later = await store.addMessage({ threadId, scope, content: "delayed", delayMs: 3_600_000 });
      const claim = { owner: "runner-1#a", leaseMs: 60_000 };
      const [claimed] = await store.claimPendingMessages(thread, claim);
      expect(claimed.id).toBe(first);

      // Not the claim's owner: nothing is recorded, and the claim goes on as claimPendingMessages does.
      const stranger = await store.completeAndClaimNext(thread, first, { status: "success" }, { owner: "stranger#b", leaseMs: 60_000 });
      expect(stranger).toMatchObject({ completed: false, claimed: [{ id: second, lockedBy: "stranger#b", replicaId: "stranger", attempts: 1 }] });
      expect(await store.getMessage(first, scope)).toMatchObject({ status: "processing", lockedBy: "runner-1#a" });

      const next = await store.completeAndClaimNext(thread, first, { status: "error", error: "model failed" }, claim);
      expect(next.completed).toBe(true);
      expect(next.claimed).toEqual([await store.getMessage(third, scope)]);
      expect(next.claimed).toMatchObject([{ id: third, status: "processing", runStatus: "running", lockedBy: "runner-1#a", replicaId: "runner-1", attempts: 1 }]);
      expect(await runRecords(store, thread)).toMatchObject([{ id: first, runStatus: "error", error: "model failed", replicaId: "runner-1" }]);

      // The last due message: completed, nothing claimed (the delayed one is not due).
      expect(await store.completeAndClaimNext(thread, third, { status: "success" }, claim)).toEqual({ completed: true, claimed: [] });
      expect(await store.completeAndClaimNext(thread, third, { status: "success" }, claim)).toEqual({ completed: false, claimed: [] });
      expect(ids(await store.getPendingMessages(thread))).toEqual([later.id]);
      expect(ids(await store.getProcessingMessages(thread))).toEqual([second]);
    });

    it("completes and claims on while producers race it: each message exactly once, in queue order", async () => {
      const threadId = freshThread();
      const thread = { ...scope, threadId };
      const perProducer = 40;
      let producing = true;
      const production = Promise.all(
        peers.slice(1).map(async (producer, p) => {
          for (let n = 0; n < perProducer; n += 1) await producer.addMessage({ threadId, scope, content: { p, n } });
        }),
      ).finally(() => {
        producing = false;
      });
      const claim = { owner: "chain#1", leaseMs: 60_000 };
      const run: PendingMessage[] = [];
      let [message] = await store.claimPendingMessages(thread, claim);
      for (;;) {
        if (!message) {
          // Read before the claim: once production has ended, this claim sees every message added.
          const produced = !producing;
          [message] = await store.claimPendingMessages(thread, claim);
          if (!message && produced) break;
          continue;
        }
        run.push(message);
        const next = await store.completeAndClaimNext(thread, message.id, { status: "success" }, claim);
        expect(next.completed).toBe(true);
        [message] = next.claimed!;
      }
      await production;
      expect(run).toHaveLength(perProducer * 3);
      for (let n = 1; n < run.length; n += 1) expect(BigInt(run[n].sequence)).toBeGreaterThan(BigInt(run[n - 1].sequence));
      expect(ids(await runRecords(store, thread))).toEqual(ids(run));
    });

    it("gives claimers racing with complete-and-claim disjoint messages: every message run and completed exactly once", async () => {
      const perThread = 40;
      // Every claimer walks every thread from its own offset, running a chain of complete-and-claim
      // on it for a few messages before moving on, so chains on one thread interleave.
      const { threads } = await raceClaimers(12, perThread, 3, async (claimer, owner, threadId, turn) => {
        const ran: PendingMessage[] = [];
        const options = { owner, leaseMs: 60_000 };
        let [message] = await claimer.claimPendingMessages({ ...scope, threadId }, options);
        for (let step = 0; message; step += 1) {
          ran.push(message);
          if (step === turn % 5) {
            // The chain's last step only completes: the walk moves on.
            expect(await claimer.completeMessage(message.id, owner, { status: "success" })).toBe(true);
            break;
          }
          const next = await claimer.completeAndClaimNext({ ...scope, threadId }, message.id, { status: "success" }, options);
          expect(next.completed).toBe(true);
          // Claims go in queue order: whatever is still pending was queued after this message.
          for (const claimed of next.claimed!) expect(BigInt(claimed.sequence)).toBeGreaterThan(BigInt(message.sequence));
          message = next.claimed![0];
        }
        return ran;
      });
      for (const threadId of threads) {
        const records = await runRecords(store, { ...scope, threadId });
        expect(records).toHaveLength(perThread);
        expect(records.every((record) => record.attempts === 1 && record.runStatus === "success")).toBe(true);
      }
    }, 30_000);

    it("renews only the owner's live claims", async () => {
      const threadId = freshThread();
      const [one, two] = await fill(store, threadId, 2);
      const [claimed] = await store.claimPendingMessages({ ...scope, threadId }, { owner: "owner#1", leaseMs: 1_000 });
      expect(await store.renewClaim([one], "intruder#1", 60_000)).toBe(0);
      expect(await store.renewClaim([one, two, "no-such-message"], "owner#1", 60_000)).toBe(1);
      const renewed = await store.getMessage(one, scope);
      expect(renewed!.leaseExpiresAt!.getTime()).toBeGreaterThan(claimed.leaseExpiresAt!.getTime() + 30_000);
      expect(await store.renewClaim([], "owner#1", 60_000)).toBe(0);

      const [shortLived] = await store.claimPendingMessages({ ...scope, threadId }, { owner: "owner#2", leaseMs: 100 });
      await sleep(250);
      expect(await store.renewClaim([shortLived.id], "owner#2", 60_000)).toBe(0);
      // Unreclaimed, an expired claim is still its owner's to complete: nobody else can have run it.
      expect(await store.completeMessage(shortLived.id, "owner#2", { status: "success" })).toBe(true);
    });

    it("keeps scope predicates strict: an absent key means none, not any", async () => {
      const threadId = freshThread();
      const scopes: QueueScope[] = [{}, { tenantId: "t" }, { assistantId: "a" }, { tenantId: "t", assistantId: "a" }, { tenantId: "u", assistantId: "a" }];
      const added = new Map<QueueScope, string>();
      for (const at of scopes) added.set(at, (await store.addMessage({ threadId, scope: at, content: at })).id);
      for (const at of scopes) {
        const mine = added.get(at)!;
        expect(ids(await store.getPendingMessages({ ...at, threadId }))).toEqual([mine]);
        expect(await store.getQueueSize({ ...at, threadId })).toBe(1);
        for (const other of scopes) expect((await store.getMessage(mine, other))?.id).toBe(other === at ? mine : undefined);
      }
      expect(await store.getQueueSize({ threadId })).toBe(1);
      expect(ids(await store.getPendingMessages({ threadId }))).toEqual([added.get(scopes[0])]);

      const withAssistant = await store.claimPendingMessages({ tenantId: "t", assistantId: "a", threadId }, { owner: "o#1", leaseMs: 60_000, limit: 10 });
      expect(ids(withAssistant)).toEqual([added.get(scopes[3])]);
      expect(await store.getMessage(withAssistant[0].id, scopes[3])).toEqual(withAssistant[0]);
      const tenantOnly = await store.claimPendingMessages({ tenantId: "t", threadId }, { owner: "o#1", leaseMs: 60_000, limit: 10 });
      expect(ids(tenantOnly)).toEqual([added.get(scopes[1])]);
      expect(await store.getMessage(tenantOnly[0].id, { tenantId: "t" })).toEqual(tenantOnly[0]);
      expect(ids(await store.getProcessingMessages({ tenantId: "t", threadId }))).toEqual([added.get(scopes[1])]);
      expect(await store.resetProcessingToPending({ assistantId: "a", threadId })).toBe(0);
      expect(await store.clearMessages({ assistantId: "a", threadId })).toBe(1);
      expect(await store.getQueueSize({ tenantId: "u", assistantId: "a", threadId })).toBe(1);
      expect(await store.completeMessage(added.get(scopes[1])!, "o#1", { status: "success" })).toBe(true);
      expect(ids(await runRecords(store, { tenantId: "t", threadId }))).toEqual([added.get(scopes[1])]);
      expect(await runRecords(store, { tenantId: "t", assistantId: "a", threadId })).toEqual([]);

      const threads = (await store.getThreadsWithPendingMessages()).filter((thread) => thread.threadId === threadId);
      expect(threads).toHaveLength(2);
      expect(threads).toContainEqual({ threadId, pendingCount: 1, expiredCount: 0, waitedMs: expect.any(Number) });
      expect(threads).toContainEqual({ threadId, tenantId: "u", assistantId: "a", pendingCount: 1, expiredCount: 0, waitedMs: expect.any(Number) });
    });

    it("respects capacity on every add path, counting claimed messages", async () => {
      const [small] = await harness.open(1, { capacity: 3 });
      const threadId = freshThread();
      await fill(small, threadId, 3);
      await expect(small.addMessage({ threadId, scope, content: "over" })).rejects.toMatchObject({ code: "QUEUE_FULL" });
      await expect(small.addMessageAtHead({ threadId, scope, content: "over" })).rejects.toMatchObject({ code: "QUEUE_FULL" });
      expect(await small.addMessageIfCapacity({ threadId, scope, content: "over" })).toBeNull();
      expect(await small.addMessageIfCapacity({ threadId, scope: {}, content: "another queue" })).not.toBeNull();

      const [claimed] = await small.claimPendingMessages({ ...scope, threadId }, { owner: "o#1", leaseMs: 60_000 });
      expect(await small.addMessageIfCapacity({ threadId, scope, content: "still full" })).toBeNull();
      await small.completeMessage(claimed.id, "o#1", { status: "success" });
      expect(await small.addMessageAtHead({ threadId, scope, content: "room again" })).toMatchObject({ status: "pending" });
      expect(await small.getQueueSize({ ...scope, threadId })).toBe(3);
    });

    it("never exceeds capacity while racers on every add path compete", async () => {
      const capacity = 10;
      const racers = await harness.open(4, { capacity });
      for (let round = 0; round < 3; round += 1) {
        const threadId = freshThread();
        const attempts = racers.flatMap((racer, r) =>
          Array.from({ length: 12 }, (_, n) => addOrNull(racer, n, { threadId, scope, content: { racer: r, n } })),
        );
        const accepted = (await Promise.all(attempts)).filter((message) => message !== null);
        expect(accepted).toHaveLength(capacity);
        expect(await racers[0].getQueueSize({ ...scope, threadId })).toBe(capacity);
      }
    });

    it("honours an add's own capacity on every add path, counting claimed messages; the store's still applies", async () => {
      const threadId = freshThread();
      await fill(store, threadId, 2);
      await expect(store.addMessage({ threadId, scope, content: "over", capacity: 2 })).rejects.toMatchObject({ code: "QUEUE_FULL", capacity: 2 });
      await expect(store.addMessageAtHead({ threadId, scope, content: "over", capacity: 1 })).rejects.toMatchObject({ code: "QUEUE_FULL", capacity: 1 });
      expect(await store.addMessageIfCapacity({ threadId, scope, content: "over", capacity: 2 })).toBeNull();
      expect(await store.addMessageIfCapacity({ threadId, scope: {}, content: "another queue", capacity: 1 })).not.toBeNull();
      expect(await store.addMessageIfCapacity({ threadId, scope, content: "room", capacity: 3 })).toMatchObject({ status: "pending" });
      expect(await store.getQueueSize({ ...scope, threadId })).toBe(3);

      const [claimed] = await store.claimPendingMessages({ ...scope, threadId }, { owner: "o#1", leaseMs: 60_000 });
      expect(await store.addMessageIfCapacity({ threadId, scope, content: "still full", capacity: 3 })).toBeNull();
      await store.completeMessage(claimed.id, "o#1", { status: "success" });
      expect(await store.addMessageAtHead({ threadId, scope, content: "room again", capacity: 3 })).toMatchObject({ status: "pending" });
      expect(await store.getQueueSize({ ...scope, threadId })).toBe(3);

      const [small] = await harness.open(1, { capacity: 2 });
      const full = freshThread();
      await fill(small, full, 2);
      await expect(small.addMessage({ threadId: full, scope, content: "over", capacity: 5 })).rejects.toMatchObject({ code: "QUEUE_FULL", capacity: 2 });
      expect(await small.addMessageIfCapacity({ threadId: full, scope, content: "over", capacity: 5 })).toBeNull();
      expect(await small.getQueueSize({ ...scope, threadId: full })).toBe(2);
    });

    it("bounds a tenant's queued messages on all its threads, on every add path, counting claimed ones", async () => {
      const tenant = { tenantId: fresh("queue-tenant"), assistantId: "assistant-a" };
      const [first, second] = [freshThread(), freshThread()];
      const bound = (threadId: string, n: number) => ({ threadId, scope: tenant, content: content(n), tenantCapacity: 3 });
      await store.addMessage(bound(first, 0));
      await store.addMessage({ threadId: first, scope: { ...tenant, assistantId: "assistant-b" }, content: content(1) });
      const [claimed] = await store.claimPendingMessages({ ...tenant, threadId: first }, { owner: "claimer#1", leaseMs: 60_000 });
      await store.addMessageAtHead(bound(second, 2));
      // At the tenant's capacity, every path refuses, whichever thread; `null` stays the thread's answer.
      // One at a time: a refusal must not arrive before its expectation is attached.
      for (const add of [() => store.addMessage(bound(second, 3)), () => store.addMessageAtHead(bound(first, 4)), () => store.addMessageIfCapacity(bound(second, 5))]) {
        await expect(add()).rejects.toMatchObject({ code: "QUEUE_FULL", capacity: 3, bound: "tenant" });
      }
      expect(await store.getQueueSize({ ...tenant, threadId: second })).toBe(1);
      // Unbounded adds (and other tenants) are not refused, and count toward the tenant's total.
      await store.addMessage({ threadId: second, scope: tenant, content: content(6) });
      const otherTenant = { tenantId: fresh("queue-tenant-other"), assistantId: "assistant-a" };
      expect(await store.addMessage({ ...bound(second, 7), scope: otherTenant })).toMatchObject({ status: "pending" });
      await expect(store.addMessage({ ...bound(second, 8), tenantCapacity: 4 })).rejects.toMatchObject({ code: "QUEUE_FULL", bound: "tenant" });
      // A completed message frees its place.
      await store.completeMessage(claimed.id, "claimer#1", { status: "success" });
      expect(await store.addMessage({ ...bound(second, 9), tenantCapacity: 4 })).toMatchObject({ status: "pending" });
    });

    it("never exceeds a tenant's capacity while racers on every add path and thread compete", async () => {
      const tenantCapacity = 7;
      for (let round = 0; round < 3; round += 1) {
        const tenant = { tenantId: fresh("queue-tenant-race"), assistantId: "assistant-a" };
        const threads = Array.from({ length: 5 }, () => freshThread());
        const attempts = peers.flatMap((peer, p) =>
          Array.from({ length: 10 }, (_, n) => addOrNull(peer, n, { threadId: threads[(p + n) % threads.length], scope: tenant, content: { p, n }, tenantCapacity })),
        );
        const settled = await Promise.allSettled(attempts);
        const accepted = settled.filter((result) => result.status === "fulfilled" && result.value !== null);
        const refused = settled.filter((result) => result.status === "rejected");
        expect(accepted).toHaveLength(tenantCapacity);
        expect(refused.every((result) => (result.reason as { bound?: string }).bound === "tenant")).toBe(true);
        const sizes = await Promise.all(threads.map((threadId) => store.getQueueSize({ ...tenant, threadId })));
        expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(tenantCapacity);
      }
    });

    it("admits exactly one of racing adds with capacity 1 on an idle thread", async () => {
      for (let round = 0; round < 3; round += 1) {
        const threadId = freshThread();
        const attempts = peers.flatMap((peer, p) =>
          Array.from({ length: 6 }, (_, n) => addOrNull(peer, n, { threadId, scope, content: { peer: p, n }, capacity: 1 })),
        );
        const accepted = (await Promise.all(attempts)).filter((message) => message !== null);
        expect(accepted).toHaveLength(1);
        expect(ids(await store.getPendingMessages({ ...scope, threadId }))).toEqual(ids(accepted));
      }
    });

    it("refuses an id the tenant used, on any of its threads and assistants, also when racers use it at once", async () => {
      const threadId = freshThread();
      const id = `${threadId}-dup`;
      await store.addMessage({ id, threadId, scope, content: 1 });
      await expect(store.addMessage({ id, threadId, scope, content: 2 })).rejects.toMatchObject({ code: "DUPLICATE_MESSAGE", messageId: id });
      const sameTenant = { tenantId: scope.tenantId };
      await expect(store.addMessageAtHead({ id, threadId: freshThread(), scope: sameTenant, content: 3 })).rejects.toMatchObject({ code: "DUPLICATE_MESSAGE" });
      expect((await store.getMessage(id, scope))?.content).toBe(1);
      // No tenant is one tenant of its own: its ids are unique too, across assistants.
      await store.addMessage({ id, threadId, scope: {}, content: 4 });
      await expect(store.addMessageIfCapacity({ id, threadId, scope: { assistantId: "a" }, content: 5 })).rejects.toMatchObject({ code: "DUPLICATE_MESSAGE" });

      const raced = `${threadId}-race`;
      const outcomes = await Promise.allSettled(peers.map((peer, n) => peer.addMessage({ id: raced, threadId, scope, content: n })));
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      for (const outcome of outcomes) if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "DUPLICATE_MESSAGE" });
      expect(await store.getQueueSize({ ...scope, threadId })).toBe(2);
    });

    it("lets tenants use the same id, each seeing and running only its own message", async () => {
      // Threads are per tenant too, so the tenants share the thread id as well as the message id.
      const threadId = freshThread();
      const id = `${threadId}-shared`;
      const tenantB: QueueScope = { tenantId: "tenant-b", assistantId: scope.assistantId };
      const noTenant: QueueScope = {};
      for (const [at, content] of [[scope, "a"], [tenantB, "b"], [noTenant, "none"]] as const) {
        expect(await store.addMessage({ id, threadId, scope: at, content })).toMatchObject({ id, ...at, content });
      }
      for (const [at, content] of [[scope, "a"], [tenantB, "b"], [noTenant, "none"]] as const) {
        expect((await store.getMessage(id, at))?.content).toBe(content);
        expect((await store.getPendingMessages({ ...at, threadId })).map((message) => message.content)).toEqual([content]);
      }
      expect(await store.getMessage(id, { tenantId: "tenant-c", assistantId: scope.assistantId })).toBeNull();

      // A claim, renewal or completion in one tenant leaves the other tenants' message with the id alone.
      const [claimedA] = await store.claimPendingMessages({ ...scope, threadId }, { owner: "a#1", leaseMs: 60_000 });
      expect(claimedA).toMatchObject({ id, content: "a" });
      expect(await store.getMessage(id, tenantB)).toMatchObject({ status: "pending" });
      expect(await store.renewClaim([id], "a#1", 60_000)).toBe(1);
      expect(await store.completeMessage(id, "b#1", { status: "success" })).toBe(false);
      expect(await store.claimPendingMessages({ ...tenantB, threadId }, { owner: "b#1", leaseMs: 60_000 })).toMatchObject([{ id, content: "b" }]);
      expect(await store.completeMessage(id, "a#1", { status: "success" })).toBe(true);
      expect(await store.getMessage(id, tenantB)).toMatchObject({ status: "processing", lockedBy: "b#1" });
      expect(await store.completeMessage(id, "b#1", { status: "error", error: "b failed" })).toBe(true);
      expect(await runRecords(store, { ...scope, threadId })).toMatchObject([{ id, content: "a", runStatus: "success" }]);
      expect(await runRecords(store, { ...tenantB, threadId })).toMatchObject([{ id, content: "b", runStatus: "error", error: "b failed" }]);
      expect(await runRecords(store, { ...noTenant, threadId })).toEqual([]);

      expect(await store.deleteThreadMessages({ ...scope, threadId })).toBe(1);
      expect(await store.getMessage(id, scope)).toBeNull();
      expect((await store.getMessage(id, tenantB))?.content).toBe("b");
      expect((await store.getMessage(id, noTenant))?.content).toBe("none");

      const raced = `${threadId}-race`;
      const added = await Promise.all(peers.map((peer, n) => peer.addMessage({ id: raced, threadId, scope: { tenantId: `racer-${n}` }, content: n })));
      expect(added.map((message) => message.tenantId)).toEqual(peers.map((_, n) => `racer-${n}`));
    });

    it("keeps enqueue order while producers race a claimer", async () => {
      const threadId = freshThread();
      const perProducer = 40;
      let producing = true;
      const production = Promise.all(
        peers.slice(1).map(async (producer, p) => {
          for (let n = 0; n < perProducer; n += 1) await producer.addMessage({ threadId, scope, content: { p, n } });
        }),
      ).finally(() => {
        producing = false;
      });
      const claimed: PendingMessage[] = [];
      for (;;) {
        const done = !producing;
        const [message] = await store.claimPendingMessages({ ...scope, threadId }, { owner: "claimer#1", leaseMs: 60_000 });
        if (message) {
          claimed.push(message);
          await store.completeMessage(message.id, "claimer#1", { status: "success" });
        } else if (done) break;
      }
      await production;
      expect(claimed).toHaveLength(perProducer * 3);
      for (let n = 1; n < claimed.length; n += 1) expect(BigInt(claimed[n].sequence)).toBeGreaterThan(BigInt(claimed[n - 1].sequence));
      for (let p = 0; p < 3; p += 1) {
        const mine = claimed.map((message) => message.content as { p: number; n: number }).filter((c) => c.p === p);
        expect(mine.map((c) => c.n)).toEqual(Array.from({ length: perProducer }, (_, n) => n));
      }
    });

    it("gives concurrent claimers disjoint sets: every message claimed exactly once", async () => {
      const perThread = 125;
      const { threads } = await raceClaimers(16, perThread, 1, async (claimer, owner, threadId, turn) => {
        const batch = await claimer.claimPendingMessages({ ...scope, threadId }, { owner, leaseMs: 60_000, limit: 1 + (turn % 4) });
        for (const message of batch) {
          expect(message.lockedBy).toBe(owner);
          expect(await claimer.completeMessage(message.id, owner, { status: "success" })).toBe(true);
        }
        return batch;
      });
      for (const threadId of threads) expect(await runRecords(store, { ...scope, threadId })).toHaveLength(perThread);
    }, 30_000);

    it("passes over a delayed message until it is due, keeping it pending, counted and in its queue position", async () => {
      const threadId = freshThread();
      const later = await store.addMessage({ threadId, scope, content: content(0), delayMs: 3_600_000 });
      expect(later).toMatchObject({ status: "pending", runStatus: "pending" });
      expect(later.availableAt!.getTime()).toBeGreaterThan(later.createdAt.getTime() + 3_500_000);
      expect(await store.getMessage(later.id, scope)).toEqual(later);
      const soon = await store.addMessage({ threadId, scope, content: content(1), delayMs: 1 });
      const now = await store.addMessage({ threadId, scope, content: content(2) });
      expect(now).not.toHaveProperty("availableAt");
      expect(ids(await store.getPendingMessages({ ...scope, threadId }))).toEqual([later.id, soon.id, now.id]);
      expect(await store.getQueueSize({ ...scope, threadId })).toBe(3);
      expect(await store.addMessageIfCapacity({ threadId, scope, content: "busy", capacity: 3 })).toBeNull();

      await sleep(50);
      // Due ones in queue order; the one not due yet stays, and its thread is no work for the sweep.
      expect(ids(await store.claimPendingMessages({ ...scope, threadId }, { owner: "o#1", leaseMs: 60_000, limit: 10 }))).toEqual([soon.id, now.id]);
      expect(await store.claimPendingMessages({ ...scope, threadId }, { owner: "o#1", leaseMs: 60_000 })).toEqual([]);
      expect((await store.getThreadsWithPendingMessages()).find((thread) => thread.threadId === threadId)).toBeUndefined();
      expect(await store.getPendingMessages({ ...scope, threadId })).toEqual([later]);
      // Aborted or deleted like any queued one.
      expect(await store.requestAbort({ ...scope, threadId }, { messageId: later.id })).toMatchObject({ status: "completed", runStatus: "aborted" });
      await expect(store.addMessage({ threadId, scope, content: "x", delayMs: -1 })).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
    });

    it("lists threads with pending work", async () => {
      const [busy, idle] = [freshThread(), freshThread()];
      await fill(store, busy, 2);
      await fill(store, idle, 1);
      await drain(store, idle);
      const threads = await store.getThreadsWithPendingMessages();
      expect(threads.find((thread) => thread.threadId === busy)).toEqual({ threadId: busy, ...scope, pendingCount: 2, expiredCount: 0, waitedMs: expect.any(Number) });
      expect(threads.find((thread) => thread.threadId === idle)).toBeUndefined();
    });

    it("says how long each thread's work has waited, the longest-waiting first (the sweep wakes those first)", async () => {
      const [older, newer, delayed] = [freshThread(), freshThread(), freshThread()];
      await fill(store, older, 1);
      await sleep(300);
      await fill(store, newer, 2);
      // Due 100 ms after it was queued: it has waited since then, not since it was queued.
      await store.addMessage({ threadId: delayed, scope, content: content(0), delayMs: 100 });
      await sleep(200);
      const mine = (await store.getThreadsWithPendingMessages()).filter((thread) => [older, newer, delayed].includes(thread.threadId));
      expect(mine.map((thread) => thread.threadId)).toEqual([older, newer, delayed]);
      const [olderWaited, newerWaited, delayedWaited] = mine.map((thread) => thread.waitedMs);
      // Less a few ms: a timer may fire a millisecond early by the wall clock the store stamps with.
      expect(olderWaited).toBeGreaterThanOrEqual(495);
      expect(newerWaited).toBeGreaterThanOrEqual(195);
      expect(newerWaited).toBeLessThan(olderWaited - 200);
      expect(delayedWaited).toBeLessThan(newerWaited);
    });

    it("clears only pending messages", async () => {
      const threadId = freshThread();
      const [first, second] = await fill(store, threadId, 3);
      await store.claimPendingMessages({ ...scope, threadId }, { owner: "o#1", leaseMs: 60_000 });
      expect(await store.clearMessages({ ...scope, threadId })).toBe(2);
      expect(ids(await store.getProcessingMessages({ ...scope, threadId }))).toEqual([first]);
      expect(await store.getMessage(second, scope)).toBeNull();
      expect(await store.getQueueSize({ ...scope, threadId })).toBe(1);
    });

    it("returns every claim of the thread to pending with resetProcessingToPending, live or not, in queue order", async () => {
      const threadId = freshThread();
      const [first, second, third] = await fill(store, threadId, 3);
      await store.claimPendingMessages({ ...scope, threadId }, { owner: "a#1", leaseMs: 60_000 });
      await store.claimPendingMessages({ ...scope, threadId }, { owner: "b#1", leaseMs: 60_000 });
      expect(await store.resetProcessingToPending({ ...scope, threadId })).toBe(2);
      expect(await store.renewClaim([first], "a#1", 60_000)).toBe(0);
      expect(ids(await store.getPendingMessages({ ...scope, threadId }))).toEqual([first, second, third]);
      // A message handed back keeps count of its claims: the next one is its second attempt.
      expect((await store.getPendingMessages({ ...scope, threadId })).map((message) => message.attempts)).toEqual([1, 1, 0]);
      expect(await store.claimPendingMessages({ ...scope, threadId }, { owner: "c#1", leaseMs: 60_000 })).toMatchObject([{ id: first, attempts: 2 }]);
    });

    it("takes earlier holders' claims back and claims the oldest unfinished message in one step; a flagged claim is completed as aborted, never claimed", async () => {
      const threadId = freshThread();
      const thread = { ...scope, threadId };
      expect(await store.takeBackAndClaim(thread, { owner: "c#1", leaseMs: 60_000 })).toEqual({ reclaimed: 0, claimed: [] });
      const [first, second, third, fourth] = await fill(store, threadId, 4);
      const later = await store.addMessage({ threadId, scope, content: "delayed", delayMs: 3_600_000 });
      await store.claimPendingMessages(thread, { owner: "a#1", leaseMs: 60_000 });
      await store.claimPendingMessages(thread, { owner: "b#1", leaseMs: 60_000 });
      await store.requestAbort(thread, { messageId: first });

      const taken = await store.takeBackAndClaim(thread, { owner: "c#1", leaseMs: 60_000 });
      expect(taken.reclaimed).toBe(2);
      expect(taken.claimed).toEqual([await store.getMessage(second, scope)]);
      expect(taken.claimed).toMatchObject([{ id: second, status: "processing", runStatus: "running", lockedBy: "c#1", replicaId: "c", attempts: 2 }]);
      expect(await store.getMessage(first, scope)).toMatchObject({ status: "completed", runStatus: "aborted", error: "Run aborted" });
      expect(await store.renewClaim([second], "b#1", 60_000)).toBe(0);
      expect(ids(await store.getPendingMessages(thread))).toEqual([third, fourth, later.id]);

      // Several at once: the claim taken back first, then the due pending ones; the delayed one waits.
      const again = await store.takeBackAndClaim(thread, { owner: "d#1", leaseMs: 60_000, limit: 5 });
      expect(again.reclaimed).toBe(1);
      expect(again.claimed).toMatchObject([
        { id: second, lockedBy: "d#1", attempts: 3 },
        { id: third, lockedBy: "d#1", attempts: 1 },
        { id: fourth, lockedBy: "d#1", attempts: 1 },
      ]);
      expect(ids(await store.getPendingMessages(thread))).toEqual([later.id]);
    });

    it("takes back and claims as resetProcessingToPending then claimPendingMessages would, priorities and all", async () => {
      const [oneStep, twoSteps] = [freshThread(), freshThread()];
      for (const threadId of [oneStep, twoSteps]) {
        await fill(store, threadId, 2);
        await store.claimPendingMessages({ ...scope, threadId }, { owner: "gone#1", leaseMs: 60_000 });
        await store.addMessage({ threadId, scope, content: "urgent", priority: 5, id: `urgent-${threadId}` });
      }
      const options = { owner: "new#1", leaseMs: 60_000 };
      const taken = await store.takeBackAndClaim({ ...scope, threadId: oneStep }, options);
      expect(await store.resetProcessingToPending({ ...scope, threadId: twoSteps })).toBe(taken.reclaimed);
      const claimed = await store.claimPendingMessages({ ...scope, threadId: twoSteps }, options);
      expect(taken.claimed).toMatchObject([{ id: `urgent-${oneStep}`, priority: 5 }]);
      expect(claimed).toMatchObject([{ id: `urgent-${twoSteps}`, priority: 5 }]);
      const shape = (messages: PendingMessage[]) => messages.map(({ status, runStatus, attempts, lockedBy, priority }) => ({ status, runStatus, attempts, lockedBy, priority }));
      expect(shape(await store.getPendingMessages({ ...scope, threadId: oneStep }))).toEqual(shape(await store.getPendingMessages({ ...scope, threadId: twoSteps })));
    });

    it("records an abort request on the thread's run in progress, for its claim's holder to apply", async () => {
      const threadId = freshThread();
      expect(await store.requestAbort({ ...scope, threadId })).toBeNull();
      const [running, waiting] = await fill(store, threadId, 2);
      expect(await store.requestAbort({ ...scope, threadId })).toBeNull();
      expect(await store.getMessage(waiting, scope)).not.toHaveProperty("abortRequestedAt");

      await store.claimPendingMessages({ ...scope, threadId }, { owner: "holder#1", leaseMs: 60_000 });
      const flagged = await store.requestAbort({ ...scope, threadId });
      expect(flagged).toMatchObject({ id: running, status: "processing", runStatus: "running", lockedBy: "holder#1" });
      expect(flagged!.abortRequestedAt).toBeInstanceOf(Date);
      expect(await store.getMessage(running, scope)).toEqual(flagged);
      // Asked again: the first request's time stands. Another scope's thread of the id is not touched.
      await sleep(20);
      expect((await store.requestAbort({ ...scope, threadId }))!.abortRequestedAt).toEqual(flagged!.abortRequestedAt);
      expect(await store.requestAbort({ tenantId: scope.tenantId, threadId })).toBeNull();
      expect(await store.getMessage(waiting, scope)).toMatchObject({ status: "pending" });
      expect(await store.getMessage(waiting, scope)).not.toHaveProperty("abortRequestedAt");

      // The claim stays its holder's: renewed, and completed only by it, with the outcome it reports.
      expect(await store.renewClaim([running], "holder#1", 60_000)).toBe(1);
      expect(await store.completeMessage(running, "intruder#1", { status: "aborted" })).toBe(false);
      expect(await store.completeMessage(running, "holder#1", { status: "aborted", error: "Run aborted" })).toBe(true);
      expect(await runRecords(store, { ...scope, threadId })).toMatchObject([{ id: running, runStatus: "aborted", error: "Run aborted", abortRequestedAt: flagged!.abortRequestedAt }]);
      expect(await store.requestAbort({ ...scope, threadId })).toBeNull();
      expect(ids(await store.claimPendingMessages({ ...scope, threadId }, { owner: "holder#1", leaseMs: 60_000 }))).toEqual([waiting]);
    });

    it("aborts a named message: a pending one at once, a processing one by its holder, a completed one not at all", async () => {
      const threadId = freshThread();
      const [done, running, waiting, behind] = await fill(store, threadId, 4);
      await store.claimPendingMessages({ ...scope, threadId }, { owner: "holder#1", leaseMs: 60_000 });
      await store.completeMessage(done, "holder#1", { status: "success" });
      await store.claimPendingMessages({ ...scope, threadId }, { owner: "holder#1", leaseMs: 60_000 });

      const neverRan = await store.requestAbort({ ...scope, threadId }, { messageId: waiting });
      expect(neverRan).toMatchObject({ id: waiting, status: "completed", runStatus: "aborted", error: "Run aborted" });
      expect(neverRan!.abortRequestedAt).toBeInstanceOf(Date);
      expect(neverRan!.finishedAt).toBeInstanceOf(Date);
      expect(neverRan).not.toHaveProperty("startedAt");
      expect(await store.getQueueSize({ ...scope, threadId })).toBe(2);

      const flagged = await store.requestAbort({ ...scope, threadId }, { messageId: running });
      expect(flagged).toMatchObject({ id: running, status: "processing", lockedBy: "holder#1" });
      expect(flagged!.abortRequestedAt).toBeInstanceOf(Date);
      const ended = await store.requestAbort({ ...scope, threadId }, { messageId: done });
      expect(ended).toMatchObject({ id: done, status: "completed", runStatus: "success" });
      expect(ended).not.toHaveProperty("abortRequestedAt");
      // Asked again, an aborted one answers as it ended.
      expect(await store.requestAbort({ ...scope, threadId }, { messageId: waiting })).toEqual(neverRan);

      // Not a message of this thread, in this scope: nothing to abort.
      const [elsewhere] = await fill(store, freshThread(), 1);
      expect(await store.requestAbort({ ...scope, threadId }, { messageId: elsewhere })).toBeNull();
      expect(await store.requestAbort({ tenantId: scope.tenantId, threadId }, { messageId: behind })).toBeNull();
      expect(await store.requestAbort({ ...scope, threadId }, { messageId: "no-such-message" })).toBeNull();
      expect(await store.getMessage(elsewhere, scope)).toMatchObject({ status: "pending" });
      expect(await store.getMessage(behind, scope)).not.toHaveProperty("abortRequestedAt");

      // A claim never hands out what was aborted; the holder's outcome stands for its own run.
      expect(await store.completeMessage(running, "holder#1", { status: "success" })).toBe(true);
      expect(ids(await store.claimPendingMessages({ ...scope, threadId }, { owner: "holder#1", leaseMs: 60_000, limit: 10 }))).toEqual([behind]);
      // By id: `waiting` and `running` may end within one millisecond, whose order the run records leave open.
      expect(Object.fromEntries((await runRecords(store, { ...scope, threadId })).map((run) => [run.id, run.runStatus]))).toEqual({
        [done]: "success",
        [waiting]: "aborted",
        [running]: "success",
      });
    });

    it("completes a flagged claim as aborted when it is released, by reclaim or reset, never returning it to pending", async () => {
      const threadId = freshThread();
      const [expiring, live, waiting] = await fill(store, threadId, 3);
      await store.claimPendingMessages({ ...scope, threadId }, { owner: "dead#1", leaseMs: 100 });
      await store.requestAbort({ ...scope, threadId });
      await sleep(250);
      expect(await store.reclaimExpiredProcessing({ ...scope, threadId })).toBe(1);
      expect(await store.getMessage(expiring, scope)).toMatchObject({ status: "completed", runStatus: "aborted", error: "Run aborted", replicaId: "dead" });
      expect(await store.completeMessage(expiring, "dead#1", { status: "success" })).toBe(false);

      await store.claimPendingMessages({ ...scope, threadId }, { owner: "gone#1", leaseMs: 60_000 });
      await store.requestAbort({ ...scope, threadId }, { messageId: live });
      expect(await store.resetProcessingToPending({ ...scope, threadId })).toBe(1);
      expect(await store.getMessage(live, scope)).toMatchObject({ status: "completed", runStatus: "aborted" });
      expect(ids(await store.getPendingMessages({ ...scope, threadId }))).toEqual([waiting]);
      expect(ids(await store.claimPendingMessages({ ...scope, threadId }, { owner: "next#1", leaseMs: 60_000, limit: 10 }))).toEqual([waiting]);
      expect((await runRecords(store, { ...scope, threadId })).map((run) => [run.id, run.runStatus])).toEqual([
        [expiring, "aborted"],
        [live, "aborted"],
      ]);
    });

    it("keeps no control record beyond its message: deleted with the thread, pruned with the run", async () => {
      const threadId = freshThread();
      const [flagged, aborted] = await fill(store, threadId, 2);
      await store.claimPendingMessages({ ...scope, threadId }, { owner: "o#1", leaseMs: 60_000 });
      await store.requestAbort({ ...scope, threadId });
      await store.requestAbort({ ...scope, threadId }, { messageId: aborted });
      expect(await store.deleteThreadMessages({ ...scope, threadId })).toBe(2);
      for (const id of [flagged, aborted]) expect(await store.getMessage(id, scope)).toBeNull();
      expect(await store.requestAbort({ ...scope, threadId })).toBeNull();

      const [pruned] = await fill(store, threadId, 1);
      await store.requestAbort({ ...scope, threadId }, { messageId: pruned });
      await sleep(50);
      expect(await store.pruneRunsOlderThan(10)).toBeGreaterThanOrEqual(1);
      expect(await store.getMessage(pruned, scope)).toBeNull();
    });

    it("applies an abort racing the run's claim, completion and takeover exactly once; no report of it contradicts the outcome", async () => {
      const rounds = 40;
      const jitter = () => sleep(Math.floor(Math.random() * 4));
      const outcomes = await Promise.all(
        Array.from({ length: rounds }, async (_, round) => {
          const [holder, requester, taker, watcher] = [0, 1, 2, 3].map((n) => peers[(round + n) % peers.length]);
          const threadId = freshThread();
          const [id] = await fill(holder, threadId, 1);
          const completions: Array<{ by: string; status: string }> = [];
          const complete = async (by: string, owner: string, via: MessageQueueStore, status: "success" | "aborted") => {
            if (await via.completeMessage(id, owner, { status })) completions.push({ by, status });
          };
          // The run's holder: claims, runs briefly, and completes it as the runtime would: aborted if
          // it learned of the request in time (half the rounds it looks), else with its own outcome.
          const hold = async () => {
            await jitter();
            const [claimed] = await holder.claimPendingMessages({ ...scope, threadId }, { owner: `h#${round}`, leaseMs: 60_000 });
            if (!claimed) return;
            await jitter();
            const flagged = round % 2 === 0 && (await holder.getMessage(id, scope))?.abortRequestedAt !== undefined;
            await complete("holder", `h#${round}`, holder, flagged ? "aborted" : "success");
          };
          // A replica taking the thread over in some rounds (its holder presumed gone): releases every
          // claim (applying a request on it), then runs what it claims to success.
          const takeOver = async () => {
            if (round % 3 !== 0) return;
            await jitter();
            await taker.resetProcessingToPending({ ...scope, threadId });
            const [claimed] = await taker.claimPendingMessages({ ...scope, threadId }, { owner: `t#${round}`, leaseMs: 60_000 });
            if (claimed) await complete("taker", `t#${round}`, taker, "success");
          };
          // The abort, and what its caller would report: the message as first seen completed.
          const abort = async () => {
            await jitter();
            return requester.requestAbort({ ...scope, threadId }, { messageId: id });
          };
          const [answer] = await Promise.all([abort(), hold(), takeOver()]);
          // Whatever is left open, the next holder takes back (applying the request) or runs.
          if ((await watcher.getMessage(id, scope))?.status !== "completed") {
            await watcher.resetProcessingToPending({ ...scope, threadId });
            const [claimed] = await watcher.claimPendingMessages({ ...scope, threadId }, { owner: `n#${round}`, leaseMs: 60_000 });
            if (claimed) await complete("next holder", `n#${round}`, watcher, "success");
          }
          return { answer, completions, final: (await watcher.getMessage(id, scope))! };
        }),
      );
      for (const { answer, completions, final } of outcomes) {
        expect(final.status).toBe("completed");
        // The abort's answer, when the message was completed already (by it, or before it), is final:
        // a run record never changes once completed, so a caller's report from it always holds.
        if (answer?.status === "completed") expect(final).toEqual(answer);
        // Completed once: by a claimer, or by the abort itself (it never ran), or, neither of those
        // having done it, by releasing its flagged claim (then it ended aborted).
        const abortedAtOnce = answer?.status === "completed" && answer.runStatus === "aborted";
        expect(completions.length + (abortedAtOnce ? 1 : 0)).toBeLessThanOrEqual(1);
        if (completions.length === 1) expect(final.runStatus).toBe(completions[0].status);
        else expect(final.runStatus).toBe("aborted");
        // The request is on the record unless it came after the run had ended.
        expect(final.abortRequestedAt === undefined).toBe(answer?.status === "completed" && answer.abortRequestedAt === undefined);
      }
      // The race is real: it ended in more than one way.
      const endings = new Set(outcomes.map(({ completions, final }) => `${completions[0]?.by ?? "abort"}:${final.runStatus}`));
      expect(endings.size).toBeGreaterThan(2);
    }, 30_000);

    it("deletes a named message of the thread unless a claim holds it: a pending one, a run record, never a processing one", async () => {
      const threadId = freshThread();
      const [done, running, waiting, behind] = await fill(store, threadId, 4);
      await store.claimPendingMessages({ ...scope, threadId }, { owner: "holder#1", leaseMs: 60_000 });
      await store.completeMessage(done, "holder#1", { status: "success" });
      await store.claimPendingMessages({ ...scope, threadId }, { owner: "holder#1", leaseMs: 60_000 });
      const [elsewhere] = await fill(store, freshThread(), 1);

      // As it stood: the record, gone after; the pending one, never claimed.
      expect(await store.deleteMessage({ ...scope, threadId }, done)).toMatchObject({ id: done, status: "completed", runStatus: "success" });
      expect(await store.deleteMessage({ ...scope, threadId }, waiting)).toMatchObject({ id: waiting, status: "pending" });
      expect(await store.getMessage(done, scope)).toBeNull();
      expect(await store.getMessage(waiting, scope)).toBeNull();
      expect(await runRecords(store, { ...scope, threadId })).toEqual([]);
      expect(await store.deleteMessage({ ...scope, threadId }, done)).toBeNull();

      // A claimed one is kept, with its claim; another thread's or scope's is not this thread's.
      expect(await store.deleteMessage({ ...scope, threadId }, running)).toMatchObject({ id: running, status: "processing", lockedBy: "holder#1" });
      expect(await store.deleteMessage({ ...scope, threadId }, elsewhere)).toBeNull();
      expect(await store.deleteMessage({ tenantId: scope.tenantId, threadId }, behind)).toBeNull();
      expect(await store.getMessage(elsewhere, scope)).toMatchObject({ status: "pending" });
      expect(await store.getQueueSize({ ...scope, threadId })).toBe(2);
      expect(await store.completeMessage(running, "holder#1", { status: "success" })).toBe(true);
      expect(ids(await store.claimPendingMessages({ ...scope, threadId }, { owner: "holder#1", leaseMs: 60_000, limit: 10 }))).toEqual([behind]);
      await expect(store.deleteMessage({ ...scope, threadId }, "")).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
    });

    it("settles a delete racing a claim one way: deleted and never claimed, or claimed and kept", async () => {
      const rounds = 60;
      const jitter = () => sleep(Math.floor(Math.random() * 4));
      const outcomes = await Promise.all(
        Array.from({ length: rounds }, async (_, round) => {
          const [claimer, deleter, watcher] = [0, 1, 2].map((n) => peers[(round + n) % peers.length]);
          const threadId = freshThread();
          const [id] = await fill(claimer, threadId, 1);
          const [claimed, deleted] = await Promise.all([
            jitter().then(() => claimer.claimPendingMessages({ ...scope, threadId }, { owner: `c#${round}`, leaseMs: 60_000 })),
            jitter().then(() => deleter.deleteMessage({ ...scope, threadId }, id)),
          ]);
          return { claimed: claimed.length === 1, kept: deleted?.status === "processing", after: await watcher.getMessage(id, scope) };
        }),
      );
      let deletedCount = 0;
      let claimedCount = 0;
      for (const { claimed, kept, after } of outcomes) {
        // Exactly one of the two won, and the record agrees with the answers.
        expect(claimed).toBe(kept);
        if (claimed) {
          claimedCount += 1;
          expect(after).toMatchObject({ status: "processing" });
        } else {
          deletedCount += 1;
          expect(after).toBeNull();
        }
      }
      expect(deletedCount + claimedCount).toBe(rounds);
      // The race is real: it ended both ways.
      expect(deletedCount).toBeGreaterThan(0);
      expect(claimedCount).toBeGreaterThan(0);
    }, 30_000);

    it("pages the thread's runs oldest first, each once, and only its own", async () => {
      const threadId = freshThread();
      // Completed one after another: many within one millisecond, told apart by the store's finer clock (or queue order).
      const added = await fill(store, threadId, 9);
      expect(await drain(store, threadId)).toEqual(added);
      await fill(store, threadId, 1);
      await fill(store, threadId, 1, { tenantId: scope.tenantId });
      for (const limit of [1, 2, 4, 9, 100]) {
        const { items, pages } = await walkPages((page) => store.listRuns({ ...scope, threadId }, page), limit);
        expect(ids(items)).toEqual(added);
        expect(pages).toBe(Math.ceil(9 / limit));
      }
      expect(await store.listRuns({ ...scope, threadId: freshThread() }, { limit: 10 })).toEqual({ items: [], nextCursor: null });
    });

    it("pages on from its cursor when runs end and are deleted between pages, the cursor's own included", async () => {
      const threadId = freshThread();
      const added = await fill(store, threadId, 6);
      const [later] = await fill(store, threadId, 1);
      for (const id of added) {
        const [message] = await store.claimPendingMessages({ ...scope, threadId }, { owner: "o#1", leaseMs: 60_000 });
        expect(message.id).toBe(id);
        await store.completeMessage(id, "o#1", { status: "success" });
      }
      const { items } = await walkPages(
        (page) => store.listRuns({ ...scope, threadId }, page),
        2,
        {
          between: async (pageIndex) => {
            if (pageIndex !== 0) return;
            // After the first page: its last run and a later one are deleted, and one more run ends (it comes last).
            expect(await store.deleteMessage({ ...scope, threadId }, added[1])).toMatchObject({ id: added[1] });
            expect(await store.deleteMessage({ ...scope, threadId }, added[3])).toMatchObject({ id: added[3] });
            expect(await drain(store, threadId)).toEqual([later]);
          },
        },
      );
      expect(ids(items)).toEqual([added[0], added[1], added[2], added[4], added[5], later]);
    });

    it.each(forgedCursors([1.5, 2]))("refuses a runs cursor that is %s with INVALID_CURSOR, and a limit out of bounds", async (_label, cursor) => {
      const threadId = freshThread();
      await fill(store, threadId, 1);
      await drain(store, threadId);
      await expect(store.listRuns({ ...scope, threadId }, { limit: 10, cursor })).rejects.toMatchObject({ code: "INVALID_CURSOR" });
      for (const limit of [0, 1.5, 1_001]) await expect(store.listRuns({ ...scope, threadId }, { limit })).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
    });

    it("deletes every message of a thread, whatever its status, within its strict scope only", async () => {
      const threadId = freshThread();
      const [done, running, waiting] = await fill(store, threadId, 3);
      await store.claimPendingMessages({ ...scope, threadId }, { owner: "o#1", leaseMs: 60_000 });
      await store.completeMessage(done, "o#1", { status: "success" });
      await store.claimPendingMessages({ ...scope, threadId }, { owner: "o#1", leaseMs: 60_000 });
      const [otherScope] = await fill(store, threadId, 1, { tenantId: scope.tenantId });
      const [otherThread] = await fill(store, freshThread(), 1);
      const sequenceOf = async (id: string) => (await store.getMessage(id, scope))!.sequence;
      const doneSequence = await sequenceOf(done);

      expect(await store.deleteThreadMessages({ assistantId: scope.assistantId, threadId })).toBe(0);
      expect(await store.deleteThreadMessages({ ...scope, threadId })).toBe(3);
      for (const id of [done, running, waiting]) expect(await store.getMessage(id, scope)).toBeNull();
      expect(await store.getQueueSize({ ...scope, threadId })).toBe(0);
      expect(await runRecords(store, { ...scope, threadId })).toEqual([]);
      expect(await store.completeMessage(running, "o#1", { status: "success" })).toBe(false);
      expect(await store.getMessage(otherScope, { tenantId: scope.tenantId })).not.toBeNull();
      expect(await store.getMessage(otherThread, scope)).not.toBeNull();
      expect(await store.deleteThreadMessages({ ...scope, threadId })).toBe(0);

      // The id is free again, and the new message is told apart from the deleted one by its sequence.
      const again = await store.addMessage({ id: done, threadId, scope, content: "again" });
      expect(again.sequence).not.toBe(doneSequence);
    });

    it("prunes run records that finished longer ago than the age, never open messages", async () => {
      const threadId = freshThread();
      const [old, recent, running, waiting] = await fill(store, threadId, 4);
      const complete = async (id: string) => {
        await store.claimPendingMessages({ ...scope, threadId }, { owner: "o#1", leaseMs: 60_000 });
        expect(await store.completeMessage(id, "o#1", { status: "success" })).toBe(true);
      };
      await complete(old);
      await sleep(600);
      await complete(recent);
      await store.claimPendingMessages({ ...scope, threadId }, { owner: "o#1", leaseMs: 60_000 });
      const ageMs = 300;

      // Also prunes the old runs of earlier tests: the store is shared, the age is what counts.
      expect(await store.pruneRunsOlderThan(ageMs)).toBeGreaterThanOrEqual(1);
      expect(await store.getMessage(old, scope)).toBeNull();
      expect(ids(await runRecords(store, { ...scope, threadId }))).toEqual([recent]);
      expect(await store.pruneRunsOlderThan(ageMs)).toBe(0);

      await sleep(2 * ageMs);
      expect(await store.pruneRunsOlderThan(ageMs)).toBe(1);
      expect(await runRecords(store, { ...scope, threadId })).toEqual([]);
      expect(ids(await store.getProcessingMessages({ ...scope, threadId }))).toEqual([running]);
      expect(ids(await store.getPendingMessages({ ...scope, threadId }))).toEqual([waiting]);
    });

    it.each<[string, (store: MessageQueueStore, threadId: string) => Promise<unknown>]>([
      ["an empty thread id", (s) => s.addMessage({ threadId: "", scope, content: 1 })],
      ["a non-string thread id", (s) => s.addMessage({ threadId: 7 as unknown as string, scope, content: 1 })],
      ["an empty message id", (s, t) => s.addMessage({ id: "", threadId: t, scope, content: 1 })],
      ["a NUL in the thread id", (s) => s.addMessage({ threadId: "bad\u0000thread", scope, content: 1 })],
      ["an empty tenant", (s, t) => s.addMessage({ threadId: t, scope: { tenantId: "" }, content: 1 })],
      ["a non-object scope", (s, t) => s.addMessageIfCapacity({ threadId: t, scope: "tenant" as unknown as QueueScope, content: 1 })],
      ["undefined content", (s, t) => s.addMessage({ threadId: t, scope, content: undefined })],
      ["content that is no JSON", (s, t) => s.addMessageAtHead({ threadId: t, scope, content: { n: 1n } })],
      ["content with a NUL", (s, t) => s.addMessage({ threadId: t, scope, content: { text: "a\u0000b" } })],
      ["a fractional priority", (s, t) => s.addMessage({ threadId: t, scope, content: 1, priority: 1.5 })],
      ["a priority beyond integer range", (s, t) => s.addMessage({ threadId: t, scope, content: 1, priority: 2 ** 40 })],
      ["an add capacity of 0", (s, t) => s.addMessageIfCapacity({ threadId: t, scope, content: 1, capacity: 0 })],
      ["a fractional add capacity", (s, t) => s.addMessage({ threadId: t, scope, content: 1, capacity: 1.5 })],
      ["a non-number add capacity", (s, t) => s.addMessageAtHead({ threadId: t, scope, content: 1, capacity: "1" as unknown as number })],
      ["a tenant capacity of 0", (s, t) => s.addMessage({ threadId: t, scope, content: 1, tenantCapacity: 0 })],
      ["a fractional tenant capacity", (s, t) => s.addMessageIfCapacity({ threadId: t, scope, content: 1, tenantCapacity: 2.5 })],
      ["a claim without owner", (s, t) => s.claimPendingMessages({ ...scope, threadId: t }, { owner: "", leaseMs: 1_000 })],
      ["a claim with a zero lease", (s, t) => s.claimPendingMessages({ ...scope, threadId: t }, { owner: "o#1", leaseMs: 0 })],
      ["a claim with a NaN lease", (s, t) => s.claimPendingMessages({ ...scope, threadId: t }, { owner: "o#1", leaseMs: Number.NaN })],
      ["a claim limit of 0", (s, t) => s.claimPendingMessages({ ...scope, threadId: t }, { owner: "o#1", leaseMs: 1_000, limit: 0 })],
      ["a renewal of a non-array", (s) => s.renewClaim("id" as unknown as string[], "o#1", 1_000)],
      ["a completion with an unfinished status", (s) => s.completeMessage("id", "o#1", { status: "running" as "success" })],
      ["a complete-and-claim with an unfinished status", (s, t) => s.completeAndClaimNext({ ...scope, threadId: t }, "id", { status: "running" as "success" }, { owner: "o#1", leaseMs: 1_000 })],
      ["a complete-and-claim without owner", (s, t) => s.completeAndClaimNext({ ...scope, threadId: t }, "id", { status: "success" }, { owner: "", leaseMs: 1_000 })],
      ["a complete-and-claim with an empty message id", (s, t) => s.completeAndClaimNext({ ...scope, threadId: t }, "", { status: "success" }, { owner: "o#1", leaseMs: 1_000 })],
      ["an abort without thread id", (s) => s.requestAbort({ ...scope, threadId: "" })],
      ["an abort with a non-object target", (s, t) => s.requestAbort({ ...scope, threadId: t }, "m1" as unknown as { messageId: string })],
      ["an abort naming an empty message id", (s, t) => s.requestAbort({ ...scope, threadId: t }, { messageId: "" })],
      ["an abort naming a non-string message id", (s, t) => s.requestAbort({ ...scope, threadId: t }, { messageId: 7 as unknown as string })],
      ["a thread delete without thread id", (s) => s.deleteThreadMessages({ ...scope, threadId: "" })],
      ["a thread delete naming no object", (s) => s.deleteThreadMessages("tenant" as unknown as ThreadQueueRef)],
      ["a negative run age", (s) => s.pruneRunsOlderThan(-1)],
      ["a NaN run age", (s) => s.pruneRunsOlderThan(Number.NaN)],
      ["an infinite run age", (s) => s.pruneRunsOlderThan(Number.POSITIVE_INFINITY)],
      ["a non-number run age", (s) => s.pruneRunsOlderThan("1" as unknown as number)],
    ])("refuses %s with a typed error and writes nothing", async (_label, call) => {
      const threadId = freshThread();
      await expect(call(store, threadId)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect(await store.getQueueSize({ ...scope, threadId })).toBe(0);
      expect(await store.getQueueSize({ threadId })).toBe(0);
    });
  });
}
