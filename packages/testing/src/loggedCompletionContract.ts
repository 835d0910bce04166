import type { MessageQueueStore, PendingMessage, RunEvent, RunEventLog, RunEventRef } from "@axiom-lattice/protocols";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./eventually";
import { fresh } from "./fresh";

export interface LoggedCompletionHarness {
  /**
   * Two handles onto one queue store (a database store's each on its own pool, so races are real; an
   * in-memory store's the same instance twice) and the run event log its completions log events in.
   */
  open(): Promise<{ queues: [MessageQueueStore, MessageQueueStore]; runEvents: RunEventLog }>;
}

const words = (from: number, count: number): RunEvent[] =>
  Array.from({ length: count }, (_, i) => ({ type: "message_chunk", data: { content: `w${from + i} ` }, index: from + i }));

const completedEvent = (index: number): RunEvent => ({ type: "message_completed", data: { status: "success" }, index });

/**
 * A queue completion whose outcome carries the run's last events (`RunOutcome.events`): they are
 * logged by the completion's own atomic step, and only when it records the outcome. Every queue store
 * with a run event log runs this same suite.
 */
export function loggedCompletionContract(name: string, harness: LoggedCompletionHarness): void {
  describe(`MessageQueueStore completion with its run's events: ${name}`, () => {
    let queue: MessageQueueStore;
    let peer: MessageQueueStore;
    let runEvents: RunEventLog;
    beforeAll(async () => {
      ({
        queues: [queue, peer],
        runEvents,
      } = await harness.open());
    });

    /** A fresh thread with `count` messages, the first claimed by `owner`: the run of that message, and the messages. */
    async function claimedRun(owner: string, count = 1, leaseMs = 60_000): Promise<{ run: RunEventRef; messages: PendingMessage[] }> {
      const thread = { tenantId: fresh("tenant"), assistantId: fresh("assistant"), threadId: fresh("thread") };
      const messages: PendingMessage[] = [];
      // Added through the peer: races between the two handles then find both pools' connections open.
      for (let n = 0; n < count; n += 1) messages.push(await peer.addMessage({ threadId: thread.threadId, scope: thread, content: { n } }));
      const [claimed] = await queue.claimPendingMessages(thread, { owner, leaseMs });
      expect(claimed?.id).toBe(messages[0]!.id);
      return { run: { ...thread, messageId: claimed!.id }, messages };
    }

    it("logs the events with the outcome, after those logged before, and wakes the run's followers", async () => {
      const { run } = await claimedRun("runner#1");
      const woken: RunEventRef[] = [];
      const unsubscribe = runEvents.subscribe((ref) => void (ref?.messageId === run.messageId && woken.push(ref)));
      try {
        // A LISTEN connection needs a moment to be up: append (again and again: harmless) until heard.
        await eventually("the append's notification", async () => (await runEvents.append(run, words(0, 2)), woken.length > 0), { intervalMs: 100 });
        woken.length = 0;
        const events = [...words(2, 2), completedEvent(4)];
        expect(await queue.completeMessage(run.messageId, "runner#1", { status: "success", events })).toBe(true);
        expect(await runEvents.read(run, -1, 100)).toEqual([...words(0, 4), completedEvent(4)]);
        await eventually("the completion's notification", async () => woken.length > 0);
        expect(woken[0]).toEqual(run);
      } finally {
        unsubscribe();
      }
    });

    it("logs none when the completion is refused: another owner's claim, or a message not claimed", async () => {
      const { run } = await claimedRun("runner#1");
      expect(await queue.completeMessage(run.messageId, "stranger#1", { status: "success", events: [completedEvent(0)] })).toBe(false);
      const unclaimed = await queue.addMessage({ threadId: run.threadId, scope: run, content: {} });
      expect(await queue.completeMessage(unclaimed.id, "runner#1", { status: "success", events: [completedEvent(0)] })).toBe(false);
      expect(await runEvents.read(run, -1, 100)).toEqual([]);
      expect(await runEvents.read({ ...run, messageId: unclaimed.id }, -1, 100)).toEqual([]);
      expect(await queue.getMessage(run.messageId, run)).toMatchObject({ status: "processing" });
    });

    it("keeps an index already logged as it is", async () => {
      const { run } = await claimedRun("runner#1");
      await runEvents.append(run, words(0, 2));
      const events = [{ type: "error", data: { code: "OTHER" }, index: 1 } as RunEvent, completedEvent(2)];
      expect(await queue.completeMessage(run.messageId, "runner#1", { status: "success", events })).toBe(true);
      expect(await runEvents.read(run, -1, 100)).toEqual([...words(0, 2), completedEvent(2)]);
    });

    it("completes and claims the next with the events logged; refused, logs none and still claims", async () => {
      const { run, messages } = await claimedRun("runner#1", 3);
      const claim = { owner: "runner#1", leaseMs: 60_000 };
      const first = await queue.completeAndClaimNext(run, run.messageId, { status: "success", events: [...words(0, 1), completedEvent(1)] }, claim);
      expect(first).toMatchObject({ completed: true, claimed: [{ id: messages[1]!.id }] });
      expect(await runEvents.read(run, -1, 100)).toEqual([...words(0, 1), completedEvent(1)]);

      const second = { ...run, messageId: messages[1]!.id };
      const refused = await queue.completeAndClaimNext(run, second.messageId, { status: "success", events: [completedEvent(0)] }, { ...claim, owner: "stranger#1" });
      expect(refused).toMatchObject({ completed: false, claimed: [{ id: messages[2]!.id }] });
      expect(await runEvents.read(second, -1, 100)).toEqual([]);
    });

    it("logs the events exactly when the outcome is recorded, racing a reclaim of the expired claim", async () => {
      const runs = await Promise.all(Array.from({ length: 12 }, () => claimedRun("runner#1", 1, 1)));
      await sleep(20);
      // Half the pairs send the reclaim first, so that each side wins some.
      const completions = await Promise.all(
        runs.map(async ({ run }, n) => {
          const complete = () => queue.completeMessage(run.messageId, "runner#1", { status: "success", events: [completedEvent(0)] });
          const reclaim = () => peer.reclaimExpiredProcessing(run);
          if (n % 2 === 0) return (await Promise.all([complete(), reclaim()]))[0];
          return (await Promise.all([reclaim(), complete()]))[1];
        }),
      );
      for (const [n, { run }] of runs.entries()) {
        const logged = await runEvents.read(run, -1, 100);
        expect(logged, `run ${n}: completed ${String(completions[n])}`).toEqual(completions[n] ? [completedEvent(0)] : []);
        expect((await queue.getMessage(run.messageId, run))?.status).toBe(completions[n] ? "completed" : "pending");
      }
    });

    it("refuses malformed events and records nothing", async () => {
      const { run } = await claimedRun("runner#1");
      const malformed: unknown[] = ["not a list", [{ type: "message_chunk", data: {}, index: -1 }], [{ data: {}, index: 0 }], [{ type: "message_chunk", index: 1.5 }], [null]];
      for (const events of malformed) {
        await expect(queue.completeMessage(run.messageId, "runner#1", { status: "success", events: events as RunEvent[] })).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      }
      expect(await queue.getMessage(run.messageId, run)).toMatchObject({ status: "processing" });
      expect(await runEvents.read(run, -1, 100)).toEqual([]);
    });
  });
}
