import type { NewScheduledTask, PageRequest, ScheduleStore, ScheduledTaskDefinition } from "@axiom-lattice/protocols";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { walkPages } from "./pageWalk";
import { JSON_BYTES_BOUND, JSON_DEPTH_BOUND, nestedObject, objectOfJsonBytes } from "./jsonShapes";

const HOUR = 3_600_000;
const T0 = Date.UTC(2031, 0, 1, 9, 0, 0);

function cronTask(overrides: Partial<NewScheduledTask> = {}): NewScheduledTask {
  return {
    taskId: fresh("task"),
    tenantId: fresh("tenant"),
    taskType: "contract",
    payload: { n: 1, nested: { list: [1, "two"] } },
    executionType: "cron",
    cronExpression: "0 * * * *",
    timezone: "Europe/Berlin",
    nextRunAt: T0,
    catchUp: "once",
    status: "pending",
    runCount: 0,
    retryCount: 0,
    maxRetries: 2,
    ...overrides,
  };
}

function onceTask(overrides: Partial<NewScheduledTask> = {}): NewScheduledTask {
  return {
    taskId: fresh("task"),
    tenantId: fresh("tenant"),
    taskType: "contract",
    payload: {},
    executionType: "once",
    executeAt: T0,
    catchUp: "skip",
    status: "pending",
    runCount: 0,
    retryCount: 0,
    maxRetries: 0,
    ...overrides,
  };
}

const ids = (tasks: ScheduledTaskDefinition[]) => tasks.map((task) => task.taskId);
const BIG_PAGE = { limit: 1_000 };

/**
 * The {@link ScheduleStore} contract. Every implementation runs this same suite, so their
 * semantics cannot drift. `makeStore` is called once per suite.
 */
export function scheduleStoreContract(name: string, makeStore: () => Promise<ScheduleStore>): void {
  describe(`ScheduleStore contract: ${name}`, () => {
    let store: ScheduleStore;
    beforeAll(async () => {
      store = await makeStore();
    });

    describe("baseline", () => {
      it("saves a schedule, stamps its times and reads it back", async () => {
        const before = Date.now();
        const task = cronTask({ maxRuns: 5, assistantId: "assistant-1", threadId: "thread-1" });
        const saved = await store.save(task);
        expect(saved).toEqual({ ...task, createdAt: saved.createdAt, updatedAt: saved.updatedAt });
        // Store clocks (the database's for PostgreSQL) may differ a little from this process's.
        expect(Math.abs(saved.createdAt - before)).toBeLessThan(5_000);
        expect(saved.updatedAt).toBe(saved.createdAt);
        expect(await store.get(task.taskId)).toEqual(saved);
      });

      it("leaves unset optional fields out and answers null for an unknown id", async () => {
        const saved = await store.save(onceTask());
        for (const key of ["nextRunAt", "cronExpression", "timezone", "maxRuns", "lastRunAt", "lastError", "assistantId", "threadId"]) {
          expect(saved).not.toHaveProperty(key);
        }
        expect(await store.get(fresh("missing"))).toBeNull();
      });

      it("refuses a taken taskId and keeps the first", async () => {
        const task = cronTask();
        await store.save(task);
        await expect(store.save({ ...task, taskType: "other" })).rejects.toMatchObject({ code: "ALREADY_EXISTS" });
        expect((await store.get(task.taskId))?.taskType).toBe("contract");
      });

      it("updates the given fields only and refreshes updatedAt", async () => {
        const saved = await store.save(cronTask());
        await sleep(20);
        await store.update(saved.taskId, { status: "paused", lastError: "boom", payload: { changed: true } });
        const updated = await store.get(saved.taskId);
        expect(updated).toMatchObject({ status: "paused", lastError: "boom", payload: { changed: true }, nextRunAt: T0, runCount: 0 });
        expect(updated!.updatedAt).toBeGreaterThan(saved.updatedAt);
        expect(updated!.createdAt).toBe(saved.createdAt);
        await store.update(fresh("missing"), { status: "paused" });
      });

      it("deletes", async () => {
        const saved = await store.save(onceTask());
        await store.delete(saved.taskId);
        expect(await store.get(saved.taskId)).toBeNull();
        await store.delete(saved.taskId);
      });

      it("lists by tenant, type, status, assistant and thread, oldest first", async () => {
        const tenant = fresh("tenant");
        const a = await store.save(cronTask({ tenantId: tenant, assistantId: "as-1", threadId: "th-1" }));
        const b = await store.save(onceTask({ tenantId: tenant, taskType: "other", assistantId: "as-1" }));
        const c = await store.save(cronTask({ tenantId: tenant, status: "paused", threadId: "th-1" }));
        const d = await store.save(onceTask({ tenantId: tenant, status: "running" }));
        const e = await store.save(onceTask({ tenantId: tenant, status: "completed" }));
        const elsewhere = await store.save(cronTask({ assistantId: "as-1", threadId: "th-1" }));

        expect(ids((await store.listTasks(BIG_PAGE, tenant)).items)).toEqual(ids([a, b, c, d, e]));
        expect(await store.countTasks(tenant)).toBe(5);
        expect(ids(await store.getActiveTasks(tenant))).toEqual(ids([a, b, d]));
        expect(ids(await store.getTasksByType("other", tenant))).toEqual(ids([b]));
        expect(ids(await store.getTasksByStatus("paused", tenant))).toEqual(ids([c]));
        expect(ids(await store.getTasksByAssistantId("as-1", tenant))).toEqual(ids([a, b]));
        expect(ids(await store.getTasksByThreadId("th-1", tenant))).toEqual(ids([a, c]));

        // Without a tenant, every tenant's rows.
        const all = ids(await store.getActiveTasks());
        expect(all).toEqual(expect.arrayContaining(ids([a, b, d, elsewhere])));
        expect(all).not.toContain(c.taskId);
        expect(ids(await store.getTasksByAssistantId("as-1"))).toEqual(expect.arrayContaining(ids([a, b, elsewhere])));
        expect(await store.countTasks()).toBeGreaterThanOrEqual(6);
      });

      it("deletes only finished tasks older than the threshold", async () => {
        const tenant = fresh("tenant");
        const old: ScheduledTaskDefinition[] = [];
        for (const status of ["completed", "cancelled", "failed", "pending", "paused", "running"] as const) {
          old.push(await store.save(onceTask({ tenantId: tenant, status })));
        }
        await sleep(250);
        const young = await store.save(onceTask({ tenantId: tenant, status: "completed" }));
        const deleted = await store.deleteOldTasks(150);
        expect(deleted).toBeGreaterThanOrEqual(3);
        expect(ids((await store.listTasks(BIG_PAGE, tenant)).items)).toEqual(ids([...old.slice(3), young]));
      });
    });

    describe("listTasks pages", () => {
      const pageOf = (tenant: string) => (page: PageRequest) => store.listTasks(page, tenant);

      it("walks every task of the tenant once, in order, and ends", async () => {
        const tenant = fresh("tenant");
        // Saved at once, several share a millisecond: a page key must tell them apart.
        const saved = await Promise.all(Array.from({ length: 7 }, (_, i) => store.save((i % 2 ? cronTask : onceTask)({ tenantId: tenant }))));
        await store.save(cronTask());
        const whole = await store.listTasks(BIG_PAGE, tenant);
        expect(whole.nextCursor).toBeNull();
        expect(new Set(ids(whole.items))).toEqual(new Set(ids(saved)));
        for (const limit of [1, 2, 3, 7]) {
          const walk = await walkPages(pageOf(tenant), limit);
          expect(ids(walk.items)).toEqual(ids(whole.items));
          expect(walk.pages).toBe(Math.ceil(7 / limit));
        }
      });

      it("neither repeats nor skips a task when one is inserted or deleted between pages", async () => {
        const tenant = fresh("tenant");
        const saved: ScheduledTaskDefinition[] = [];
        for (let i = 0; i < 5; i += 1) saved.push(await store.save(onceTask({ tenantId: tenant })));
        const first = await store.listTasks({ limit: 2 }, tenant);
        expect(ids(first.items)).toEqual(ids(saved.slice(0, 2)));
        // The page's last task (where the cursor points) and a later one go; a new one comes.
        await store.delete(saved[1].taskId);
        await store.delete(saved[3].taskId);
        const added = await store.save(onceTask({ tenantId: tenant }));
        const rest = await walkPages(pageOf(tenant), 2, { from: first.nextCursor });
        expect(ids(rest.items)).toEqual(ids([saved[2], saved[4], added]));
      });

      it("refuses a cursor no page of this list returned with INVALID_CURSOR", async () => {
        const tenant = fresh("tenant");
        await store.save(onceTask({ tenantId: tenant }));
        const otherShape = Buffer.from(JSON.stringify(["task-1"])).toString("base64url");
        for (const cursor of ["garbage", "", otherShape]) {
          await expect(store.listTasks({ limit: 1, cursor }, tenant)).rejects.toMatchObject({ code: "INVALID_CURSOR" });
        }
      });
    });

    describe("claimScheduledRun", () => {
      it("moves pending → running for exactly one caller", async () => {
        const task = await store.save(cronTask());
        expect(await store.claimScheduledRun(task.taskId)).toBe(true);
        expect((await store.get(task.taskId))?.status).toBe("running");
        expect(await store.claimScheduledRun(task.taskId)).toBe(false);
      });

      it("lets exactly one of many concurrent claims win", async () => {
        const task = await store.save(cronTask());
        const results = await Promise.all(Array.from({ length: 12 }, () => store.claimScheduledRun(task.taskId, T0)));
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it("claims nothing that is not pending, nor an unknown task", async () => {
        for (const status of ["paused", "completed", "cancelled", "failed", "running"] as const) {
          const task = await store.save(cronTask({ status }));
          expect(await store.claimScheduledRun(task.taskId)).toBe(false);
          expect((await store.get(task.taskId))?.status).toBe(status);
        }
        expect(await store.claimScheduledRun(fresh("missing"))).toBe(false);
      });

      it("with expectedRunAt claims only the fire scheduled then (nextRunAt for cron, executeAt for once)", async () => {
        const cron = await store.save(cronTask({ nextRunAt: T0, executeAt: T0 + HOUR }));
        expect(await store.claimScheduledRun(cron.taskId, T0 + HOUR)).toBe(false);
        expect(await store.claimScheduledRun(cron.taskId, T0)).toBe(true);

        const once = await store.save(onceTask({ executeAt: T0, nextRunAt: T0 + HOUR }));
        expect(await store.claimScheduledRun(once.taskId, T0 + HOUR)).toBe(false);
        expect(await store.claimScheduledRun(once.taskId, T0)).toBe(true);
      });

      it("a stale timer for fire N cannot claim fire N+1", async () => {
        const task = await store.save(cronTask());
        expect(await store.claimScheduledRun(task.taskId, T0)).toBe(true);
        expect(await store.settleScheduledRun(task.taskId, T0, { status: "pending", runCount: 1, retryCount: 0, nextRunAt: T0 + HOUR })).toBe(true);
        // Fire N+1 is pending now; the late timer of fire N must not take it early.
        expect(await store.claimScheduledRun(task.taskId, T0)).toBe(false);
        expect((await store.get(task.taskId))?.status).toBe("pending");
        expect(await store.claimScheduledRun(task.taskId, T0 + HOUR)).toBe(true);
      });

      it("keeps millisecond precision of the fire time", async () => {
        const at = T0 + 123;
        const task = await store.save(cronTask({ nextRunAt: at }));
        expect((await store.get(task.taskId))?.nextRunAt).toBe(at);
        expect(await store.claimScheduledRun(task.taskId, at + 1)).toBe(false);
        expect(await store.claimScheduledRun(task.taskId, at)).toBe(true);
      });
    });

    describe("heartbeat, settlement and stale recovery", () => {
      it("heartbeats only a running task, refreshing updatedAt", async () => {
        const task = await store.save(cronTask());
        expect(await store.heartbeatScheduledRun(task.taskId)).toBe(false);
        await store.claimScheduledRun(task.taskId);
        const claimed = (await store.get(task.taskId))!;
        await sleep(20);
        expect(await store.heartbeatScheduledRun(task.taskId)).toBe(true);
        const beaten = (await store.get(task.taskId))!;
        expect(beaten.updatedAt).toBeGreaterThan(claimed.updatedAt);
        expect(beaten.status).toBe("running");
        expect(await store.heartbeatScheduledRun(fresh("missing"))).toBe(false);
      });

      it("settles the claimed fire only", async () => {
        const task = await store.save(cronTask({ runCount: 3 }));
        const settlement = { status: "pending", runCount: 4, retryCount: 0, nextRunAt: T0 + HOUR, lastRunAt: T0 + 5 } as const;
        expect(await store.settleScheduledRun(task.taskId, T0, settlement)).toBe(false); // not claimed
        await store.claimScheduledRun(task.taskId, T0);
        expect(await store.settleScheduledRun(task.taskId, T0 + 1, settlement)).toBe(false); // another fire
        expect(await store.settleScheduledRun(task.taskId, T0, settlement)).toBe(true);
        expect(await store.get(task.taskId)).toMatchObject({ status: "pending", runCount: 4, nextRunAt: T0 + HOUR, lastRunAt: T0 + 5 });
        expect(await store.settleScheduledRun(task.taskId, T0, settlement)).toBe(false); // already settled
      });

      it("settles a one-shot retry by moving executeAt, and failure with lastError", async () => {
        const task = await store.save(onceTask({ maxRetries: 1 }));
        await store.claimScheduledRun(task.taskId, T0);
        await store.settleScheduledRun(task.taskId, T0, { status: "pending", runCount: 0, retryCount: 1, executeAt: T0 + 1_000, lastError: "first" });
        expect(await store.get(task.taskId)).toMatchObject({ status: "pending", retryCount: 1, executeAt: T0 + 1_000, lastError: "first" });
        expect(await store.claimScheduledRun(task.taskId, T0 + 1_000)).toBe(true);
        await store.settleScheduledRun(task.taskId, T0 + 1_000, { status: "failed", runCount: 0, retryCount: 1, lastError: "second" });
        expect(await store.get(task.taskId)).toMatchObject({ status: "failed", lastError: "second" });
      });

      it("keeps a pause or cancel made during the run, recording the run", async () => {
        for (const status of ["paused", "cancelled"] as const) {
          const task = await store.save(cronTask());
          await store.claimScheduledRun(task.taskId, T0);
          await store.update(task.taskId, { status });
          expect(await store.settleScheduledRun(task.taskId, T0, { status: "pending", runCount: 1, retryCount: 0, nextRunAt: T0 + HOUR })).toBe(true);
          expect(await store.get(task.taskId)).toMatchObject({ status, runCount: 1, nextRunAt: T0 + HOUR });
        }
      });

      it("requeues running tasks not updated within the threshold, and only those", async () => {
        const tenant = fresh("tenant");
        const stale = await store.save(cronTask({ tenantId: tenant }));
        const live = await store.save(cronTask({ tenantId: tenant }));
        const paused = await store.save(cronTask({ tenantId: tenant, status: "paused" }));
        await store.claimScheduledRun(stale.taskId);
        await store.claimScheduledRun(live.taskId);
        await sleep(300);
        await store.heartbeatScheduledRun(live.taskId);
        const requeued = await store.requeueStaleRunning(200);
        expect(requeued).toContain(stale.taskId);
        expect(requeued).not.toContain(live.taskId);
        expect(requeued).not.toContain(paused.taskId);
        const byId = new Map((await store.listTasks(BIG_PAGE, tenant)).items.map((task) => [task.taskId, task.status]));
        expect(byId.get(stale.taskId)).toBe("pending");
        expect(byId.get(live.taskId)).toBe("running");
        expect(byId.get(paused.taskId)).toBe("paused");
        // The requeued fire is claimable again, as the same fire.
        expect(await store.claimScheduledRun(stale.taskId, T0)).toBe(true);
        expect(await store.requeueStaleRunning(60_000)).toEqual([]);
      });
    });

    describe("bad input", () => {
      const bad = (label: string, call: () => Promise<unknown>) => [label, call] as const;
      it.each([
        bad("an empty taskId", () => store.save(cronTask({ taskId: "" }))),
        bad("a missing tenantId", () => store.save(cronTask({ tenantId: undefined }))),
        bad("an unknown status", () => store.save(cronTask({ status: "sleeping" as never }))),
        bad("an unknown execution type", () => store.save(cronTask({ executionType: "weekly" as never }))),
        bad("an unknown catch-up policy", () => store.save(cronTask({ catchUp: "all" as never }))),
        bad("a cron task without nextRunAt", () => store.save(cronTask({ nextRunAt: undefined }))),
        bad("a one-shot task without executeAt", () => store.save(onceTask({ executeAt: undefined }))),
        bad("a NaN fire time", () => store.save(onceTask({ executeAt: Number.NaN }))),
        bad("a negative runCount", () => store.save(cronTask({ runCount: -1 }))),
        bad("a fractional maxRetries", () => store.save(cronTask({ maxRetries: 1.5 }))),
        bad("a zero maxRuns", () => store.save(cronTask({ maxRuns: 0 }))),
        bad("an array payload", () => store.save(cronTask({ payload: [] as never }))),
        bad("a payload with NUL", () => store.save(cronTask({ payload: { text: "a\u0000b" } }))),
        bad("a payload nested one level too deep", () => store.save(cronTask({ payload: nestedObject(JSON_DEPTH_BOUND + 1) }))),
        bad("a payload one byte too large", () => store.save(cronTask({ payload: objectOfJsonBytes(JSON_BYTES_BOUND + 1) }))),
        bad("an update to a payload nested too deep", () => store.update("task", { payload: nestedObject(4_100) })),
        bad("an unknown field", () => store.save({ ...cronTask(), colour: "red" } as never)),
        bad("an update of tenantId", () => store.update("task", { tenantId: "other" } as never)),
        bad("an update with a string runCount", () => store.update("task", { runCount: "1" as never })),
        bad("a non-string taskId on get", () => store.get(42 as never)),
        bad("a NaN expectedRunAt", () => store.claimScheduledRun("task", Number.NaN)),
        bad("a settlement to running", () => store.settleScheduledRun("task", T0, { status: "running" as never, runCount: 0, retryCount: 0 })),
        bad("a negative stale threshold", () => store.requeueStaleRunning(-1)),
        bad("an infinite age threshold", () => store.deleteOldTasks(Number.POSITIVE_INFINITY)),
        bad("an unknown status filter", () => store.getTasksByStatus("sleeping" as never)),
        bad("an empty tenant filter", () => store.listTasks(BIG_PAGE, "")),
        bad("a page limit of 0", () => store.listTasks({ limit: 0 })),
        bad("a page limit above the bound", () => store.listTasks({ limit: 1_001 })),
      ])("refuses %s with a typed error", async (_label, call) => {
        await expect(call()).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      });

      it("stores nothing on refused input", async () => {
        const task = cronTask({ runCount: -1 });
        await expect(store.save(task)).rejects.toThrow();
        expect(await store.get(task.taskId)).toBeNull();
        expect(await store.countTasks(task.tenantId)).toBe(0);
        const saved = await store.save(cronTask());
        await expect(store.update(saved.taskId, { status: "pending", runCount: -3 })).rejects.toThrow();
        expect(await store.get(saved.taskId)).toEqual(saved);
      });
    });
  });
}
