import type { RunEvent, RunEventLog, RunEventRef } from "@axiom-lattice/protocols";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./eventually";
import { fresh } from "./fresh";

const freshRun = (): RunEventRef => ({ tenantId: fresh("tenant"), assistantId: fresh("assistant"), threadId: fresh("thread"), messageId: fresh("message") });

const words = (from: number, count: number): RunEvent[] =>
  Array.from({ length: count }, (_, i) => ({ type: "message_chunk", data: { content: `w${from + i} ` }, index: from + i }));

/**
 * The {@link RunEventLog} contract. Every implementation runs this same suite, so their semantics
 * cannot drift. `makeStore` may return the same store for every call.
 */
export function runEventLogContract(name: string, makeStore: () => Promise<RunEventLog>): void {
  describe(`RunEventLog contract: ${name}`, () => {
    let store: RunEventLog;
    beforeAll(async () => {
      store = await makeStore();
    });

    it("reads a run's events in index order, after a position, within a limit", async () => {
      const run = freshRun();
      expect(await store.read(run, -1, 100)).toEqual([]);
      expect(await store.lastIndex(run)).toBe(-1);
      await store.append(run, words(0, 3));
      await store.append(run, [...words(3, 2), { type: "message_completed", data: { status: "success" }, index: 5 }]);
      const all = await store.read(run, -1, 100);
      expect(all.map((event) => event.index)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(all[0]).toEqual({ type: "message_chunk", data: { content: "w0 " }, index: 0 });
      expect(all[5]).toEqual({ type: "message_completed", data: { status: "success" }, index: 5 });
      expect((await store.read(run, 3, 100)).map((event) => event.index)).toEqual([4, 5]);
      expect((await store.read(run, 1, 2)).map((event) => event.index)).toEqual([2, 3]);
      expect(await store.read(run, 5, 100)).toEqual([]);
      expect(await store.lastIndex(run)).toBe(5);
    });

    it("reads nothing after a position past any index a log holds (a client's largest safe integer)", async () => {
      const run = freshRun();
      await store.append(run, words(0, 2));
      expect(await store.read(run, Number.MAX_SAFE_INTEGER, 100)).toEqual([]);
    });

    it("keeps what is logged when a batch is appended again", async () => {
      const run = freshRun();
      await store.append(run, words(0, 3));
      await store.append(run, [{ type: "error", data: { code: "OTHER" }, index: 2 }, ...words(3, 1)]);
      expect(await store.read(run, -1, 100)).toEqual(words(0, 4));
    });

    it("keeps runs apart: another message, thread or tenant reads nothing of it", async () => {
      const run = freshRun();
      await store.append(run, words(0, 2));
      for (const other of [{ ...run, messageId: fresh("message") }, { ...run, threadId: fresh("thread") }, { ...run, tenantId: fresh("tenant") }]) {
        expect(await store.read(other, -1, 100)).toEqual([]);
      }
    });

    it("deletes every run of a thread, and only those", async () => {
      const run = freshRun();
      const sibling = { ...run, messageId: fresh("message") };
      const otherThread = { ...run, threadId: fresh("thread") };
      for (const each of [run, sibling, otherThread]) await store.append(each, words(0, 2));
      await store.deleteThread({ tenantId: run.tenantId, assistantId: run.assistantId, threadId: run.threadId });
      expect(await store.read(run, -1, 100)).toEqual([]);
      expect(await store.read(sibling, -1, 100)).toEqual([]);
      expect(await store.lastIndex(run)).toBe(-1);
      expect(await store.read(otherThread, -1, 100)).toHaveLength(2);
    });

    it("deletes one run's log, and only it", async () => {
      const run = freshRun();
      const sibling = { ...run, messageId: fresh("message") };
      for (const each of [run, sibling]) await store.append(each, words(0, 2));
      await store.deleteRun(run);
      expect(await store.read(run, -1, 100)).toEqual([]);
      expect(await store.lastIndex(run)).toBe(-1);
      expect(await store.read(sibling, -1, 100)).toHaveLength(2);
      await store.deleteRun(run);
    });

    it("prunes events logged longer ago than the retention", async () => {
      const old = freshRun();
      const recent = freshRun();
      await store.append(old, words(0, 2));
      // A retention the old events are well past and the recent ones well within, also when a busy
      // machine delays the calls between the append and the prune.
      await sleep(1_000);
      await store.append(recent, words(0, 2));
      expect(await store.pruneOlderThan(60_000)).toBe(0);
      expect(await store.pruneOlderThan(500)).toBeGreaterThanOrEqual(2);
      expect(await store.read(old, -1, 100)).toEqual([]);
      expect(await store.read(recent, -1, 100)).toHaveLength(2);
    });

    it("tells subscribers which run was appended to", async () => {
      const run = freshRun();
      const heard: RunEventRef[] = [];
      const unsubscribe = store.subscribe((appended) => {
        if (appended?.messageId === run.messageId) heard.push(appended);
      });
      try {
        // A LISTEN connection needs a moment to be up: append until heard.
        await eventually(
          "the append's notification",
          async () => {
            await store.append(run, words(0, 1));
            return heard.length > 0;
          },
          { intervalMs: 100 },
        );
        expect(heard[0]).toEqual(run);
      } finally {
        unsubscribe();
      }
    });
  });
}
