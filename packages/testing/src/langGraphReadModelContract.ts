import type { LangGraphReadModel, MessageQueueStore, QueueScope, ThreadFilter, ThreadQueueRef, ThreadStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { walkPages } from "./pageWalk";

export interface LangGraphReadModelHarness {
  /** A read model and the thread and queue stores whose data it reads (one database, or one process's stores). */
  open(): Promise<{ readModel: LangGraphReadModel; threads: ThreadStore; queue: MessageQueueStore }>;
}

const scope: Required<QueueScope> = { tenantId: "tenant-a", assistantId: "assistant-a" };
const ids = (found: Array<{ id: string }>) => found.map((item) => item.id);

/**
 * The {@link LangGraphReadModel} contract. Every implementation runs this same suite, so their
 * semantics cannot drift; what it reads is written through the thread and queue stores.
 */
export function langGraphReadModelContract(name: string, harness: LangGraphReadModelHarness): void {
  describe(`LangGraphReadModel contract: ${name}`, () => {
    let readModel: LangGraphReadModel;
    let threads: ThreadStore;
    let queue: MessageQueueStore;
    beforeAll(async () => {
      ({ readModel, threads, queue } = await harness.open());
    });

    /** Adds `count` messages to the thread and runs each to `success`, one after another; returns their ids. */
    async function ranRuns(thread: ThreadQueueRef, count: number): Promise<string[]> {
      const ran: string[] = [];
      for (let n = 0; n < count; n += 1) {
        await queue.addMessage({ threadId: thread.threadId, scope: { tenantId: thread.tenantId, assistantId: thread.assistantId }, content: { n } });
        const [message] = await queue.claimPendingMessages(thread, { owner: "runner#1", leaseMs: 60_000 });
        await queue.completeMessage(message.id, "runner#1", { status: "success" });
        ran.push(message.id);
      }
      return ran;
    }

    it("searches a tenant's threads newest first, filtered and sliced", async () => {
      const tenant = fresh("tenant");
      for (const [id, assistantId] of [["t1", "a"], ["t2", "b"], ["t3", "a"], ["t4", "a"]]) {
        await threads.createThread(tenant, { id, assistantId });
      }
      expect(ids(await readModel.searchThreads(tenant))).toEqual(["t4", "t3", "t2", "t1"]);
      expect(ids(await readModel.searchThreads(tenant, { assistantId: "a" }))).toEqual(["t4", "t3", "t1"]);
      expect(ids(await readModel.searchThreads(tenant, { assistantId: "a", limit: 1, offset: 1 }))).toEqual(["t3"]);
      expect(await readModel.searchThreads(tenant, { assistantId: "nobody" })).toEqual([]);
      expect(await readModel.searchThreads(tenant, { offset: 4 })).toEqual([]);
    });

    it("finds threads as the thread store has them: in its list's order, and each as it reads it", async () => {
      const tenant = fresh("tenant");
      // Created at once: many within one millisecond, told apart by the store's finer clock (or order).
      await Promise.all(Array.from({ length: 15 }, (_, n) => threads.createThread(tenant, { id: `t${n}`, assistantId: n % 3 === 0 ? "b" : "a", metadata: { n } })));
      const listed = (await walkPages((page) => threads.listThreads(tenant, page), 4)).items;
      expect(await readModel.searchThreads(tenant)).toEqual(listed);
      expect(await readModel.searchThreads(tenant, { assistantId: "b" })).toEqual(listed.filter((thread) => thread.assistantId === "b"));
      await threads.updateThread(tenant, "t7", { seen: true }, { ttlMinutes: 5, config: { configurable: { a: 1 } } });
      expect(await readModel.searchThreads(tenant, { ids: ["t7"] })).toEqual([await threads.getThread(tenant, "t7")]);
      expect(await threads.deleteThread(tenant, "t7")).toBe(true);
      expect(await readModel.searchThreads(tenant, { ids: ["t7"] })).toEqual([]);
    });

    it("isolates tenants: one tenant's search never finds another's threads", async () => {
      const [a, b] = [fresh("tenant"), fresh("tenant")];
      await threads.createThread(a, { id: "shared", assistantId: "assistant", metadata: { owner: "a" } });
      expect(await readModel.searchThreads(b)).toEqual([]);
      expect(await readModel.searchThreads(b, { ids: ["shared"] })).toEqual([]);
      await threads.createThread(b, { id: "shared", assistantId: "assistant", metadata: { owner: "b" } });
      expect((await readModel.searchThreads(b)).map((thread) => thread.metadata)).toEqual([{ owner: "b" }]);
    });

    it("searches by metadata containment (as jsonb @> judges it), by ids, and in any order", async () => {
      const tenant = fresh("tenant");
      const created: Array<[string, Record<string, unknown>]> = [
        ["b", { graph_id: "react", tags: ["x", "y"], owner: { name: "ann", team: "eu" } }],
        ["a", { graph_id: "react", tags: ["y"] }],
        ["c", { graph_id: "other", count: 1 }],
        ["d", {}],
      ];
      for (const [id, metadata] of created) await threads.createThread(tenant, { id, assistantId: "any", metadata });
      const found = (filter: ThreadFilter) => readModel.searchThreads(tenant, filter).then(ids);

      expect(await found({ metadata: { graph_id: "react" } })).toEqual(["a", "b"]);
      expect(await found({ metadata: { tags: ["y"] } })).toEqual(["a", "b"]);
      expect(await found({ metadata: { tags: ["x"] } })).toEqual(["b"]);
      expect(await found({ metadata: { owner: { team: "eu" } } })).toEqual(["b"]);
      expect(await found({ metadata: { count: 1 } })).toEqual(["c"]);
      expect(await found({ metadata: { count: "1" } })).toEqual([]);
      expect(await found({ metadata: { tags: "y" } })).toEqual([]);
      expect(await found({ metadata: {} })).toEqual(["d", "c", "a", "b"]);
      expect(await found({ ids: ["c", "a", "missing"] })).toEqual(["c", "a"]);
      expect(await found({ ids: [] })).toEqual([]);

      expect(await found({ sortOrder: "asc" })).toEqual(["b", "a", "c", "d"]);
      expect(await found({ sortBy: "id", sortOrder: "asc" })).toEqual(["a", "b", "c", "d"]);
      expect(await found({ sortBy: "id", limit: 2, offset: 1 })).toEqual(["c", "b"]);
      await threads.updateThread(tenant, "a", { touched: true });
      expect((await found({ sortBy: "updatedAt" }))[0]).toBe("a");
      expect(await found({ sortBy: "updatedAt", sortOrder: "asc", metadata: { touched: true } })).toEqual(["a"]);
    });

    it("reads a thread's latest runs, oldest first, as the queue recorded them", async () => {
      const thread = { ...scope, threadId: fresh("thread") };
      const ran = await ranRuns(thread, 5);
      const latest = await readModel.latestRuns(thread);
      expect(ids(latest)).toEqual(ran);
      expect(latest).toEqual((await queue.listRuns(thread, { limit: 10 })).items);
      expect(latest.map((run) => run.runStatus)).toEqual(Array(5).fill("success"));
      expect(ids(await readModel.latestRuns(thread, { limit: 2 }))).toEqual(ran.slice(3));
      expect(ids(await readModel.latestRuns(thread, { limit: 1 }))).toEqual(ran.slice(4));
    });

    it("reads only completed runs, and only the thread's own in its strict scope", async () => {
      const threadId = fresh("thread");
      const thread = { ...scope, threadId };
      const [ran] = await ranRuns(thread, 1);
      // Queued, and running: neither is a run record yet.
      await queue.addMessage({ threadId, scope, content: "running" });
      await queue.claimPendingMessages(thread, { owner: "runner#1", leaseMs: 60_000 });
      await queue.addMessage({ threadId, scope, content: "queued" });
      expect(ids(await readModel.latestRuns(thread))).toEqual([ran]);
      // The same thread id under another tenant, under no assistant, or in no scope, is another queue.
      const [other] = await ranRuns({ tenantId: "tenant-b", assistantId: scope.assistantId, threadId }, 1);
      expect(ids(await readModel.latestRuns({ tenantId: "tenant-b", assistantId: scope.assistantId, threadId }))).toEqual([other]);
      expect(await readModel.latestRuns({ tenantId: scope.tenantId, threadId })).toEqual([]);
      expect(await readModel.latestRuns({ threadId })).toEqual([]);
      expect(await readModel.latestRuns({ ...scope, threadId: fresh("thread") })).toEqual([]);
    });

    it.each<[string, (readModel: LangGraphReadModel, tenant: string) => Promise<unknown>]>([
      ["an empty tenant", (r) => r.searchThreads("")],
      ["a non-object filter", (r, t) => r.searchThreads(t, "a" as never)],
      ["a non-integer limit", (r, t) => r.searchThreads(t, { limit: 2.5 })],
      ["a limit above 1,000", (r, t) => r.searchThreads(t, { limit: 1_001 })],
      ["a negative offset", (r, t) => r.searchThreads(t, { offset: -1 })],
      ["an unknown sort key", (r, t) => r.searchThreads(t, { sortBy: "status" as never })],
      ["an unknown sort order", (r, t) => r.searchThreads(t, { sortOrder: "up" as never })],
      ["metadata to match that is no object", (r, t) => r.searchThreads(t, { metadata: ["x"] as never })],
      ["ids that are no list", (r, t) => r.searchThreads(t, { ids: "a" as never })],
      ["an empty id among ids", (r, t) => r.searchThreads(t, { ids: ["a", ""] })],
      ["a runs limit of 0", (r, t) => r.latestRuns({ ...scope, threadId: t }, { limit: 0 })],
      ["a runs limit above 1,000", (r, t) => r.latestRuns({ ...scope, threadId: t }, { limit: 1_001 })],
      ["runs of no thread", (r) => r.latestRuns({ ...scope, threadId: "" })],
      ["runs of a thread naming no object", (r) => r.latestRuns("thread" as unknown as ThreadQueueRef)],
    ])("refuses %s with a typed error", async (_label, read) => {
      await expect(read(readModel, fresh("tenant"))).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
    });
  });
}
