import type { CreateTaskRequest, TaskItem, TaskListFilter, TaskStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { JSON_BYTES_BOUND, JSON_DEPTH_BOUND, nestedObject, objectOfJsonBytes } from "./jsonShapes";

const request = (overrides: Partial<CreateTaskRequest> = {}): CreateTaskRequest => ({
  ownerType: "agent",
  ownerId: "writer",
  title: "Write the summary",
  priority: 0,
  ...overrides,
});

/** Writes `count` times as fast as the store allows, each returning the task written. */
async function writeInARow(store: TaskStore, tenant: string, id: string, count: number): Promise<TaskItem[]> {
  const written: TaskItem[] = [];
  for (let index = 0; index < count; index += 1) {
    const task = await store.updateTask(tenant, id, { priority: index });
    if (!task) throw new Error(`task ${id} vanished`);
    written.push(task);
  }
  return written;
}

/** Every task of `tenant` matching `filter`, walking the list `limit` at a time (from `cursor`); every page but the last is full. */
async function listAll(store: TaskStore, tenant: string, filter?: TaskListFilter, limit = 1_000, cursor: string | null = null): Promise<TaskItem[]> {
  const tasks: TaskItem[] = [];
  do {
    const page = await store.listTasks(tenant, { limit, cursor }, filter);
    if (page.nextCursor !== null) expect(page.items).toHaveLength(limit);
    tasks.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return tasks;
}

/**
 * The {@link TaskStore} contract. Every implementation runs this same suite, so their semantics
 * cannot drift. `makeStore` may return the same store for every call.
 */
export function taskStoreContract(name: string, makeStore: () => Promise<TaskStore>): void {
  describe(`TaskStore contract: ${name}`, () => {
    let store: TaskStore;
    beforeAll(async () => {
      store = await makeStore();
    });

    it("creates a task with defaults, keeps every field, and reads it back", async () => {
      const tenant = fresh("tenant");
      const minimal = await store.createTask(tenant, request());
      expect(minimal).toMatchObject({ tenantId: tenant, ownerType: "agent", ownerId: "writer", title: "Write the summary", status: "pending", priority: 0 });
      expect(minimal.id).toMatch(/\S/);
      expect(minimal.fencingToken).toBeUndefined();
      expect(minimal.description).toBeUndefined();
      expect(minimal.updatedAt).toEqual(minimal.createdAt);
      const full: CreateTaskRequest = {
        id: "t-full",
        ownerType: "user",
        ownerId: "u1",
        title: "Full",
        description: "",
        status: "in_progress",
        priority: -3,
        dueDate: new Date("2030-01-02T03:04:05.678Z"),
        metadata: { tags: ["a"], n: 1.5 },
        parentId: "p1",
        sourceId: "s1",
        context: { execution_requested_at: "2026-01-01T00:00:00Z", nested: { ok: true } },
        requireReview: true,
        dependencies: ["d1", "d2"],
        result: null,
        failureReason: "none yet",
        workspaceId: "w1",
        projectId: "proj1",
      };
      const created = await store.createTask(tenant, full);
      expect(created).toMatchObject({ ...full, tenantId: tenant });
      expect(await store.getTask(tenant, "t-full")).toEqual(created);
      expect(await store.getTask(tenant, "missing")).toBeNull();
    });

    it("keeps only known fields", async () => {
      const tenant = fresh("tenant");
      const created = await store.createTask(tenant, { ...request({ id: "k" }), stray: "dropped", fencingToken: "99" } as never);
      expect(created).not.toHaveProperty("stray");
      expect(created.fencingToken).toBeUndefined();
      expect(await store.getTask(tenant, "k")).toEqual(created);
    });

    it("refuses an id the tenant already uses, also when racers use it at once", async () => {
      const tenant = fresh("tenant");
      await store.createTask(tenant, request({ id: "same" }));
      await expect(store.createTask(tenant, request({ id: "same", title: "Other" }))).rejects.toMatchObject({ code: "ALREADY_EXISTS", kind: "task" });
      expect((await store.getTask(tenant, "same"))?.title).toBe("Write the summary");
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => store.createTask(tenant, request({ id: "raced" }))));
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    });

    it("lists with filters, in a stable order", async () => {
      const tenant = fresh("tenant");
      const make = (id: string, overrides: Partial<CreateTaskRequest>) => store.createTask(tenant, request({ id, ...overrides }));
      await make("a", { status: "pending", ownerId: "o1", projectId: "p1" });
      await make("b", { status: "in_progress", ownerId: "o2", projectId: "p1", parentId: "a" });
      await make("c", { status: "completed", ownerType: "user", ownerId: "o1", workspaceId: "w1", parentId: "a" });
      await make("d", { status: "in_progress", ownerId: "o1", projectId: "p2" });
      const ids = async (filter?: TaskListFilter) => (await listAll(store, tenant, filter)).map((task) => task.id);
      expect(await ids()).toEqual(["a", "b", "c", "d"]);
      expect(await ids({ status: ["in_progress", "completed"] })).toEqual(["b", "c", "d"]);
      expect(await ids({ status: [] })).toEqual([]);
      expect(await ids({ ownerId: "o1" })).toEqual(["a", "c", "d"]);
      expect(await ids({ ownerType: "user" })).toEqual(["c"]);
      expect(await ids({ projectId: "p1" })).toEqual(["a", "b"]);
      expect(await ids({ workspaceId: "w1" })).toEqual(["c"]);
      expect(await ids({ parentId: "a" })).toEqual(["b", "c"]);
      expect(await ids({ ownerId: "o1", status: ["in_progress"], projectId: "p2" })).toEqual(["d"]);
      // Updates do not reorder: the order is by creation.
      await store.updateTask(tenant, "a", { title: "touched" });
      expect(await ids()).toEqual(["a", "b", "c", "d"]);
    });

    describe("pages", () => {
      it("walks the list page by page, every task once and in order, the last page without a cursor", async () => {
        const tenant = fresh("tenant");
        for (const id of ["a", "b", "c", "d", "e"]) await store.createTask(tenant, request({ id, projectId: id === "c" ? "other" : "p" }));
        const first = await store.listTasks(tenant, { limit: 2 });
        expect(first.items.map((task) => task.id)).toEqual(["a", "b"]);
        expect(first.nextCursor).toEqual(expect.any(String));
        expect((await listAll(store, tenant, undefined, 2)).map((task) => task.id)).toEqual(["a", "b", "c", "d", "e"]);
        expect((await listAll(store, tenant, { projectId: "p" }, 2)).map((task) => task.id)).toEqual(["a", "b", "d", "e"]);
        // A page that ends the list exactly says so: no empty page follows.
        expect(await store.listTasks(tenant, { limit: 5 })).toMatchObject({ nextCursor: null });
        expect(await store.listTasks(fresh("tenant"), { limit: 5 })).toEqual({ items: [], nextCursor: null });
      });

      it("neither repeats nor skips a task when others are created or deleted between pages", async () => {
        const tenant = fresh("tenant");
        for (const id of ["a", "b", "c", "d", "e"]) await store.createTask(tenant, request({ id }));
        const first = await store.listTasks(tenant, { limit: 2 });
        expect(first.items.map((task) => task.id)).toEqual(["a", "b"]);
        // The task the cursor was taken from goes, as does one not yet read; a new one comes last.
        await store.deleteTask(tenant, "b");
        await store.deleteTask(tenant, "d");
        await store.createTask(tenant, request({ id: "z-new" }));
        const rest = await listAll(store, tenant, undefined, 2, first.nextCursor);
        expect(rest.map((task) => task.id)).toEqual(["c", "e", "z-new"]);
      });

      it("orders tasks created within one millisecond by id, page after page", async () => {
        const tenant = fresh("tenant");
        const created = await Promise.all(["z", "B", "a", "m", "0"].map((id) => store.createTask(tenant, request({ id }))));
        const expected = [...created].sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime() || (x.id < y.id ? -1 : 1)).map((task) => task.id);
        expect((await listAll(store, tenant)).map((task) => task.id)).toEqual(expected);
        expect((await listAll(store, tenant, undefined, 1)).map((task) => task.id)).toEqual(expected);
      });

      it.each([
        ["garbage", "not a cursor"],
        ["another list's key", Buffer.from(JSON.stringify(["a", "b"])).toString("base64url")],
        ["a key too short", Buffer.from(JSON.stringify([1])).toString("base64url")],
      ])("refuses %s as a cursor with INVALID_CURSOR", async (_, cursor) => {
        const tenant = fresh("tenant");
        await store.createTask(tenant, request({ id: "x" }));
        await expect(store.listTasks(tenant, { limit: 1, cursor })).rejects.toMatchObject({ code: "INVALID_CURSOR" });
      });
    });

    describe("scanTasks", () => {
      /** Every task of `tenants` the scan yields, page by page, as `tenant/id`; other tests' tasks are left out. */
      async function scanAll(statuses: TaskItem["status"][], limit: number, tenants: string[]): Promise<string[]> {
        const seen: string[] = [];
        let after: { tenantId: string; id: string } | undefined;
        for (;;) {
          const page = await store.scanTasks({ statuses, limit, after });
          expect(page.length).toBeLessThanOrEqual(limit);
          seen.push(...page.filter((task) => tenants.includes(task.tenantId)).map((task) => `${task.tenantId}/${task.id}`));
          if (page.length < limit) return seen;
          const last = page[page.length - 1];
          after = { tenantId: last.tenantId, id: last.id };
        }
      }

      it("pages through the tasks of given statuses across tenants, by tenant then id", async () => {
        const base = fresh("scan");
        // Tenants and ids that sort differently by code unit than by a locale: upper case first.
        const [a, b] = [`${base}-B`, `${base}-a`];
        const make = (tenant: string, id: string, status: TaskItem["status"]) => store.createTask(tenant, request({ id, status }));
        await make(b, "z", "in_progress");
        await make(b, "A", "in_progress");
        await make(a, "m", "in_progress");
        await make(a, "x", "completed");
        await make(a, "Q", "pending");
        await make(b, "0", "in_progress");
        const expected = [`${a}/m`, `${b}/0`, `${b}/A`, `${b}/z`];
        for (const limit of [1, 2, 3, 1000]) expect(await scanAll(["in_progress"], limit, [a, b])).toEqual(expected);
        expect(await scanAll(["pending", "completed"], 2, [a, b])).toEqual([`${a}/Q`, `${a}/x`]);
        expect(await scanAll([], 10, [a, b])).toEqual([]);
        expect(await store.scanTasks({ statuses: ["in_progress"], limit: 0 })).toEqual([]);
      });

      it("resumes after its cursor even when the task there changed status or is gone", async () => {
        const tenant = fresh("scan");
        for (const id of ["a", "b", "c"]) await store.createTask(tenant, request({ id, status: "in_progress" }));
        const first = await store.scanTasks({ statuses: ["in_progress"], limit: 1, after: { tenantId: tenant, id: "a" } });
        expect(first.map((task) => task.id)).toEqual(["b"]);
        await store.updateTask(tenant, "b", { status: "failed" });
        await store.deleteTask(tenant, "a");
        const rest = await store.scanTasks({ statuses: ["in_progress"], limit: 10, after: { tenantId: tenant, id: "b" } });
        expect(rest.filter((task) => task.tenantId === tenant).map((task) => task.id)).toEqual(["c"]);
        const scanned = (await store.scanTasks({ statuses: ["in_progress"], limit: 1, after: { tenantId: tenant, id: "b" } }))[0];
        expect(scanned).toEqual(await store.getTask(tenant, "c"));
      });
    });

    it("updates given fields, keeps the others, and advances updatedAt", async () => {
      const tenant = fresh("tenant");
      const created = await store.createTask(tenant, request({ id: "u", description: "first", metadata: { a: 1 } }));
      const updated = await store.updateTask(tenant, "u", { status: "in_progress", result: { text: "done" }, context: { k: "v" }, description: undefined });
      expect(updated).toMatchObject({ id: "u", status: "in_progress", result: { text: "done" }, context: { k: "v" }, description: "first", metadata: { a: 1 }, title: "Write the summary" });
      expect(updated?.createdAt).toEqual(created.createdAt);
      expect(updated!.updatedAt.getTime()).toBeGreaterThan(created.updatedAt.getTime());
      expect(await store.getTask(tenant, "u")).toEqual(updated);
      expect(await store.updateTask(tenant, "missing", { title: "x" })).toBeNull();
    });

    it("advances updatedAt strictly on every write, even many within one millisecond", async () => {
      const tenant = fresh("tenant");
      const created = await store.createTask(tenant, request({ id: "m" }));
      const times = [created, ...(await writeInARow(store, tenant, "m", 30))].map((task) => task.updatedAt.getTime());
      for (let index = 1; index < times.length; index += 1) expect(times[index]).toBeGreaterThan(times[index - 1]!);
    });

    it("updateIfStatusIn writes only while the status is one of those given", async () => {
      const tenant = fresh("tenant");
      const created = await store.createTask(tenant, request({ id: "s" }));
      expect(await store.updateIfStatusIn(tenant, "s", ["in_progress", "review"], { status: "completed" })).toBeNull();
      expect(await store.getTask(tenant, "s")).toEqual(created);
      expect(await store.updateIfStatusIn(tenant, "s", [], { status: "completed" })).toBeNull();
      const started = await store.updateIfStatusIn(tenant, "s", ["pending"], { status: "in_progress" });
      expect(started?.status).toBe("in_progress");
      expect(await store.updateIfStatusIn(tenant, "s", ["pending"], { status: "in_progress", title: "twice" })).toBeNull();
      expect(await store.getTask(tenant, "s")).toEqual(started);
      expect(await store.updateIfStatusIn(tenant, "missing", ["pending"], { title: "x" })).toBeNull();
    });

    it("updateIfStatusIn lets exactly one of many racers move the task", async () => {
      const tenant = fresh("tenant");
      await store.createTask(tenant, request({ id: "race" }));
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, index) => store.updateIfStatusIn(tenant, "race", ["pending"], { status: "in_progress", ownerId: `racer-${index}` })),
      );
      const winners = outcomes.filter((task) => task !== null);
      expect(winners).toHaveLength(1);
      expect(await store.getTask(tenant, "race")).toEqual(winners[0]);
    });

    it("updateIfSnapshot writes only while status and updatedAt are those read", async () => {
      const tenant = fresh("tenant");
      const created = await store.createTask(tenant, request({ id: "snap" }));
      const snapshot = { status: created.status, updatedAt: created.updatedAt };
      expect(await store.updateIfSnapshot(tenant, "snap", { ...snapshot, status: "review" }, { title: "wrong status" })).toBeNull();
      expect(await store.updateIfSnapshot(tenant, "snap", { ...snapshot, updatedAt: new Date(created.updatedAt.getTime() - 1) }, { title: "wrong time" })).toBeNull();
      expect(await store.getTask(tenant, "snap")).toEqual(created);
      const first = await store.updateIfSnapshot(tenant, "snap", snapshot, { title: "first" });
      expect(first?.title).toBe("first");
      // The same snapshot is spent: a write with an unchanged status still moved updatedAt.
      expect(await store.updateIfSnapshot(tenant, "snap", snapshot, { title: "second" })).toBeNull();
      const second = await store.updateIfSnapshot(tenant, "snap", { status: first!.status, updatedAt: first!.updatedAt }, { title: "second" });
      expect(second?.title).toBe("second");
      expect(await store.getTask(tenant, "snap")).toEqual(second);
      expect(await store.updateIfSnapshot(tenant, "missing", snapshot, { title: "x" })).toBeNull();
    });

    it("updateIfSnapshot lets exactly one of many racers from one snapshot win", async () => {
      const tenant = fresh("tenant");
      const created = await store.createTask(tenant, request({ id: "snap-race" }));
      const snapshot = { status: created.status, updatedAt: created.updatedAt };
      const outcomes = await Promise.all(Array.from({ length: 8 }, (_, index) => store.updateIfSnapshot(tenant, "snap-race", snapshot, { title: `racer-${index}` })));
      const winners = outcomes.filter((task) => task !== null);
      expect(winners).toHaveLength(1);
      expect(await store.getTask(tenant, "snap-race")).toEqual(winners[0]);
    });

    describe("fencing", () => {
      it("remembers the highest token, accepts equal and newer ones, and compares them as integers", async () => {
        const tenant = fresh("tenant");
        await store.createTask(tenant, request({ id: "f" }));
        expect((await store.updateTask(tenant, "f", { status: "in_progress" }, { fencingToken: "9" }))?.fencingToken).toBe("9");
        expect((await store.updateTask(tenant, "f", { title: "same holder" }, { fencingToken: "9" }))?.fencingToken).toBe("9");
        // "10" < "9" as text: a store comparing text would refuse this newer token.
        const newer = await store.updateTask(tenant, "f", { title: "successor" }, { fencingToken: "10" });
        expect(newer).toMatchObject({ title: "successor", fencingToken: "10" });
        expect(await store.getTask(tenant, "f")).toEqual(newer);
        const huge = "9223372036854775807";
        expect((await store.updateTask(tenant, "f", { title: "max" }, { fencingToken: huge }))?.fencingToken).toBe(huge);
      });

      it("refuses a write under an older token with LEASE_LOST, not null, and writes nothing", async () => {
        const tenant = fresh("tenant");
        const created = await store.createTask(tenant, request({ id: "stale" }));
        const successor = await store.updateTask(tenant, "stale", { status: "in_progress", ownerId: "successor" }, { fencingToken: "10" });
        const writes: (() => Promise<unknown>)[] = [
          () => store.updateTask(tenant, "stale", { status: "failed" }, { fencingToken: "9" }),
          () => store.updateIfStatusIn(tenant, "stale", ["in_progress"], { status: "failed" }, { fencingToken: "2" }),
          () => store.updateIfSnapshot(tenant, "stale", { status: successor!.status, updatedAt: successor!.updatedAt }, { status: "failed" }, { fencingToken: "0" }),
          // Refused as stale even when the compare-and-set would miss too: the writer must learn it lost its lease.
          () => store.updateIfStatusIn(tenant, "stale", ["pending"], { status: "failed" }, { fencingToken: "9" }),
        ];
        for (const write of writes) await expect(write()).rejects.toMatchObject({ code: "LEASE_LOST", name: "StaleFencingTokenError", token: expect.any(String), seenToken: "10" });
        expect(await store.getTask(tenant, "stale")).toEqual(successor);
        expect(created.fencingToken).toBeUndefined();
      });

      it("lets a write without a token through, keeping the remembered token", async () => {
        const tenant = fresh("tenant");
        await store.createTask(tenant, request({ id: "user-edit" }));
        await store.updateTask(tenant, "user-edit", { status: "in_progress" }, { fencingToken: "5" });
        const edited = await store.updateTask(tenant, "user-edit", { title: "edited by a user" });
        expect(edited).toMatchObject({ title: "edited by a user", fencingToken: "5" });
        const cas = await store.updateIfStatusIn(tenant, "user-edit", ["in_progress"], { description: "cas without token" });
        expect(cas?.fencingToken).toBe("5");
        await expect(store.updateTask(tenant, "user-edit", { title: "stale" }, { fencingToken: "4" })).rejects.toMatchObject({ code: "LEASE_LOST" });
        expect(await store.getTask(tenant, "user-edit")).toEqual(cas);
      });

      it("reports a compare-and-set miss under a current token as null, not as a stale token", async () => {
        const tenant = fresh("tenant");
        await store.createTask(tenant, request({ id: "miss" }));
        await store.updateTask(tenant, "miss", { status: "completed" }, { fencingToken: "3" });
        expect(await store.updateIfStatusIn(tenant, "miss", ["in_progress"], { status: "failed" }, { fencingToken: "3" })).toBeNull();
        expect(await store.updateIfStatusIn(tenant, "miss", ["in_progress"], { status: "failed" }, { fencingToken: "4" })).toBeNull();
        // The missed write did not raise the remembered token either.
        expect((await store.getTask(tenant, "miss"))?.fencingToken).toBe("3");
      });
    });

    it("isolates tenants: the same id in two tenants is two tasks, invisible to each other", async () => {
      const [a, b] = [fresh("tenant"), fresh("tenant")];
      const created = await store.createTask(a, request({ id: "shared", projectId: "p" }));
      const snapshot = { status: created.status, updatedAt: created.updatedAt };
      expect(await store.getTask(b, "shared")).toBeNull();
      expect(await listAll(store, b)).toEqual([]);
      expect(await listAll(store, b, { projectId: "p" })).toEqual([]);
      expect(await store.updateTask(b, "shared", { title: "Hijacked" })).toBeNull();
      expect(await store.updateIfStatusIn(b, "shared", ["pending"], { title: "Hijacked" })).toBeNull();
      expect(await store.updateIfSnapshot(b, "shared", snapshot, { title: "Hijacked" })).toBeNull();
      expect(await store.updateTask(b, "shared", { title: "Hijacked" }, { fencingToken: "1" })).toBeNull();
      expect(await store.deleteTask(b, "shared")).toBe(false);
      const theirs = await store.createTask(b, request({ id: "shared", title: "B's" }));
      expect(theirs.tenantId).toBe(b);
      expect(await store.getTask(a, "shared")).toEqual(created);
      expect((await listAll(store, a)).map((task) => task.title)).toEqual(["Write the summary"]);
    });

    it("deletes a task once", async () => {
      const tenant = fresh("tenant");
      await store.createTask(tenant, request({ id: "gone" }));
      expect(await store.deleteTask(tenant, "gone")).toBe(true);
      expect(await store.getTask(tenant, "gone")).toBeNull();
      expect(await store.deleteTask(tenant, "gone")).toBe(false);
      expect(await store.updateTask(tenant, "gone", { title: "x" })).toBeNull();
    });

    it("deletes a task only while its status is one of those given", async () => {
      const tenant = fresh("tenant");
      await store.createTask(tenant, request({ id: "busy", status: "in_progress" }));
      expect(await store.deleteTask(tenant, "busy", ["pending", "completed"])).toBe(false);
      expect(await store.getTask(tenant, "busy")).toMatchObject({ status: "in_progress" });
      await store.updateTask(tenant, "busy", { status: "completed" });
      expect(await store.deleteTask(tenant, "busy", ["pending", "completed"])).toBe(true);
      expect(await store.getTask(tenant, "busy")).toBeNull();
    });

    it("keeps JSON exactly at the bounds of free-form JSON", async () => {
      const tenant = fresh("tenant");
      const deep = nestedObject(JSON_DEPTH_BOUND);
      const large = objectOfJsonBytes(JSON_BYTES_BOUND);
      const created = await store.createTask(tenant, request({ id: "bounds", metadata: deep, context: large }));
      expect(created).toMatchObject({ metadata: deep, context: large });
      expect((await store.updateTask(tenant, "bounds", { result: large }))?.result).toEqual(large);
    });

    describe("refuses bad arguments with INVALID_STORE_ARGUMENT and writes nothing", () => {
      const longId = "x".repeat(129);
      const cases: [string, (store: TaskStore, tenant: string) => Promise<unknown>][] = [
        ["an empty tenant", (s) => s.createTask("", request())],
        ["an empty id", (s, t) => s.createTask(t, request({ id: "" }))],
        ["an id over 128 characters", (s, t) => s.createTask(t, request({ id: longId }))],
        ["an empty title", (s, t) => s.createTask(t, request({ id: "x", title: "" }))],
        ["a bad owner type", (s, t) => s.createTask(t, request({ id: "x", ownerType: "robot" as never }))],
        ["a bad status", (s, t) => s.createTask(t, request({ id: "x", status: "done" as never }))],
        ["a fractional priority", (s, t) => s.createTask(t, request({ id: "x", priority: 1.5 }))],
        ["an invalid due date", (s, t) => s.createTask(t, request({ id: "x", dueDate: new Date(Number.NaN) }))],
        ["metadata that is not an object", (s, t) => s.createTask(t, request({ id: "x", metadata: [1] as never }))],
        ["a result that is not JSON", (s, t) => s.createTask(t, request({ id: "x", result: 1n }))],
        ["context nested one level too deep", (s, t) => s.createTask(t, request({ id: "x", context: nestedObject(JSON_DEPTH_BOUND + 1) }))],
        ["metadata one byte too large", (s, t) => s.createTask(t, request({ id: "x", metadata: objectOfJsonBytes(JSON_BYTES_BOUND + 1) }))],
        ["a parent id over 128 characters", (s, t) => s.createTask(t, request({ id: "x", parentId: longId }))],
        ["a dependency that is not an id", (s, t) => s.createTask(t, request({ id: "x", dependencies: [""] }))],
        ["an update of an empty id", (s, t) => s.updateTask(t, "", { title: "y" })],
        ["a read of an id over 128 characters", (s, t) => s.getTask(t, longId)],
        ["an update to a bad status", (s, t) => s.updateTask(t, "x", { status: "done" as never })],
        ["an update with a result too large", (s, t) => s.updateTask(t, "x", { result: objectOfJsonBytes(JSON_BYTES_BOUND + 1) })],
        ["a status list with a bad status", (s, t) => s.updateIfStatusIn(t, "x", ["pending", "nope" as never], { title: "y" })],
        ["a snapshot with an invalid time", (s, t) => s.updateIfSnapshot(t, "x", { status: "pending", updatedAt: new Date(Number.NaN) }, { title: "y" })],
        ["a fencing token that is not a decimal integer", (s, t) => s.updateTask(t, "x", { title: "y" }, { fencingToken: "1e3" })],
        ["a negative fencing token", (s, t) => s.updateTask(t, "x", { title: "y" }, { fencingToken: "-1" })],
        ["a fencing token beyond a bigint", (s, t) => s.updateTask(t, "x", { title: "y" }, { fencingToken: "9223372036854775808" })],
        ["a list filter with a bad status", (s, t) => s.listTasks(t, { limit: 1 }, { status: ["nope" as never] })],
        ["a list limit of 0", (s, t) => s.listTasks(t, { limit: 0 })],
        ["a fractional list limit", (s, t) => s.listTasks(t, { limit: 1.5 })],
        ["a list limit over the maximum", (s, t) => s.listTasks(t, { limit: 1_000_000 })],
        ["a scan with a bad status", (s) => s.scanTasks({ statuses: ["nope" as never], limit: 1 })],
        ["a scan limit over the maximum", (s) => s.scanTasks({ statuses: ["pending"], limit: 1_000_000 })],
        ["a scan cursor without a tenant", (s) => s.scanTasks({ statuses: ["pending"], limit: 1, after: { tenantId: "", id: "x" } })],
      ];
      it.each(cases)("%s", async (_, call) => {
        const tenant = fresh("tenant");
        const before = await store.createTask(tenant, request({ id: "x" }));
        await expect(call(store, tenant)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
        expect(await listAll(store, tenant)).toEqual([before]);
      });
    });
  });
}
