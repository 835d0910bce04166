import { runRecords } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { InMemoryMessageQueueStore, RetentionJob } from "../../src";
import { recordingLogger } from "../coordination/support";

// The scheduling, overlap, failure and disabling behaviour is tested through OutboxRetentionJob
// (outbox/outboxRetentionJob.test.ts); these tests cover what the runs retention adds.

const HOUR = 60 * 60 * 1_000;
const scope = { tenantId: "t", assistantId: "a" };

/** A queue store whose clock can be moved forward, and a way to leave a completed run in it. */
function queueWithMovableClock() {
  let offset = 0;
  const queue = new InMemoryMessageQueueStore({ now: () => Date.now() + offset });
  return {
    queue,
    advance: (ms: number) => (offset += ms),
    async run(threadId: string): Promise<string> {
      const { id } = await queue.addMessage({ threadId, scope, content: { message: "hi" } });
      await queue.claimPendingMessages({ ...scope, threadId }, { owner: "o#1", leaseMs: 1_000 });
      await queue.completeMessage(id, "o#1", { status: "success" });
      return id;
    },
  };
}

describe("RetentionJob over run records", () => {
  it("removes runs that finished longer ago than the retention, keeping newer runs and open messages", async () => {
    const { logger, entries: logs } = recordingLogger();
    const { queue, advance, run } = queueWithMovableClock();
    await run("t1");
    await run("t2");
    advance(25 * HOUR);
    const recent = await run("t1");
    const open = await queue.addMessage({ threadId: "t1", scope, content: { message: "later" } });
    const job = new RetentionJob({ subject: "run", prune: (olderThanMs) => queue.pruneRunsOlderThan(olderThanMs), retentionHours: 24, logger });

    expect(await job.runOnce()).toBe(2);
    expect((await runRecords(queue, { ...scope, threadId: "t1" })).map((message) => message.id)).toEqual([recent]);
    expect(await runRecords(queue, { ...scope, threadId: "t2" })).toEqual([]);
    expect((await queue.getPendingMessages({ ...scope, threadId: "t1" })).map((message) => message.id)).toEqual([open.id]);
    expect(logs).toContainEqual(expect.objectContaining({ level: "info", msg: "run pruned", fields: expect.objectContaining({ removed: 2 }) }));
  });

  it("names its subject when disabled or failing", async () => {
    const { logger, entries: logs } = recordingLogger();
    const prune = async () => {
      throw new Error("database unavailable");
    };
    const job = new RetentionJob({ subject: "run", prune, retentionHours: 168, logger });
    expect(job.name).toBe("run-retention");
    expect(await job.run()).toBe(0);
    expect(logs).toContainEqual(expect.objectContaining({ level: "warn", msg: "run prune failed; will retry at the next sweep" }));

    expect(new RetentionJob({ subject: "run", prune, retentionHours: 0, logger }).maintenanceTasks()).toEqual([]);
    expect(logs).toContainEqual(expect.objectContaining({ level: "info", msg: "run retention disabled" }));
  });
});
