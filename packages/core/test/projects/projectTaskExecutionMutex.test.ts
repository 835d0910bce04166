import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import {
  type ExclusiveWait,
  InMemoryLeaseStore,
  LeaseAcquireTimeoutError,
  LeaseLostError,
  MutexReentryError,
  ProjectTaskExecutionMutex,
  projectTaskMachineLeaseKey,
  type ProjectTaskScope,
} from "../../src";
import { recordingLogger, storeWithMovableClock } from "../coordination/support";

const scope: ProjectTaskScope = { tenantId: "t1", assistantId: "bot", projectId: "p1" };
const otherProject: ProjectTaskScope = { ...scope, projectId: "p2" };

const { logger } = recordingLogger();

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe.each([
  ["process-local only", () => new ProjectTaskExecutionMutex({ logger })],
  ["with a lease store", () => new ProjectTaskExecutionMutex({ logger, leaseStore: new InMemoryLeaseStore() })],
])("ProjectTaskExecutionMutex, %s", (_label, makeMutex) => {
  it("runs one machine's operations one at a time, in the order they were asked for", async () => {
    const mutex = makeMutex();
    const events: string[] = [];
    let inside = 0;
    let mostInside = 0;
    const runs = Array.from({ length: 8 }, (_, n) =>
      mutex.runExclusive(scope, async () => {
        inside += 1;
        mostInside = Math.max(mostInside, inside);
        events.push(`start ${n}`);
        await sleep(n % 2 === 0 ? 5 : 0); // uneven work: a later, shorter operation must still wait
        events.push(`end ${n}`);
        inside -= 1;
        return n;
      }),
    );
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(mostInside).toBe(1);
    expect(events).toEqual(Array.from({ length: 8 }, (_, n) => [`start ${n}`, `end ${n}`]).flat());
  });

  it("runs operations of different machines at the same time", async () => {
    const mutex = makeMutex();
    const bothInside = gate();
    let inside = 0;
    const operation = async () => {
      inside += 1;
      if (inside === 2) bothInside.open();
      // Serialised machines would wait here forever: the other operation could never enter.
      await bothInside.opened;
    };
    await Promise.all([mutex.runExclusive(scope, operation), mutex.runExclusive(otherProject, operation), mutex.runExclusive({ ...scope, assistantId: "other" }, operation)]);
    expect(inside).toBe(3);
  });

  it("refuses a nested acquisition of the same machine at once, and allows other machines inside", async () => {
    const mutex = makeMutex();
    const outcome = await mutex.runExclusive(scope, async () => {
      const nested = await mutex.runExclusive(scope, async () => "deadlock").catch((error: unknown) => error);
      const other = await mutex.runExclusive(otherProject, async () => "other machine");
      return { nested, other };
    });
    expect(outcome.nested).toBeInstanceOf(MutexReentryError);
    expect(outcome.nested).toMatchObject({ code: "MUTEX_REENTRY", leaseKey: projectTaskMachineLeaseKey(scope) });
    expect(outcome.other).toBe("other machine");
    // The refusal left the machine usable.
    expect(await mutex.runExclusive(scope, async () => "again")).toBe("again");
  });

  it("does not count work an operation started, but which runs after it ended, as reentry", async () => {
    const mutex = makeMutex();
    const ended = gate();
    const later = await mutex.runExclusive(scope, async () => ({
      // Started inside the operation (so it inherits its async context), asking only once it has ended.
      spawned: ended.opened.then(() => mutex.runExclusive(scope, async () => "queued after")),
    }));
    ended.open();
    expect(await later.spawned).toBe("queued after");
  });

  it("releases the machine when an operation throws", async () => {
    const mutex = makeMutex();
    await expect(mutex.runExclusive(scope, async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await mutex.runExclusive(scope, async () => "next")).toBe("next");
  });

  it.each<[string, () => { wait: ExclusiveWait; giveUp(): void; refusal: object }]>([
    [
      "gives up (its signal)",
      () => {
        const controller = new AbortController();
        return { wait: { signal: controller.signal }, giveUp: () => controller.abort(new Error("gave up")), refusal: { message: "gave up" } };
      },
    ],
    ["runs out of its own acquireTimeoutMs", () => ({ wait: { acquireTimeoutMs: 50 }, giveUp: () => {}, refusal: { code: "LEASE_ACQUIRE_TIMEOUT" } })],
  ])("lets a waiting caller that %s leave the line; those behind it keep their order", async (_label, quitting) => {
    const mutex = makeMutex();
    const first = gate();
    const events: string[] = [];
    const holder = mutex.runExclusive(scope, async () => {
      await first.opened;
      events.push("first");
    });
    const { wait, giveUp, refusal } = quitting();
    const quitter = mutex.runExclusive(scope, async () => events.push("quitter"), wait);
    const third = mutex.runExclusive(scope, async () => events.push("third"));
    giveUp();
    await expect(quitter).rejects.toMatchObject(refusal);
    first.open();
    await Promise.all([holder, third]);
    expect(events).toEqual(["first", "third"]);
  });

  it("refuses a scope without all of its parts", async () => {
    const mutex = makeMutex();
    await expect(mutex.runExclusive({ ...scope, projectId: "" }, async () => 1)).rejects.toMatchObject({ code: "INVALID_LEASE_ARGUMENT" });
    await expect(mutex.runExclusive({ tenantId: "t" } as ProjectTaskScope, async () => 1)).rejects.toMatchObject({ code: "INVALID_LEASE_ARGUMENT" });
  });
});

describe("ProjectTaskExecutionMutex with a lease store", () => {
  it("holds the machine's lease around the operation, passes its fencing token, and releases it", async () => {
    const store = new InMemoryLeaseStore();
    const mutex = new ProjectTaskExecutionMutex({ logger, leaseStore: store, replicaId: "replica-a" });
    const key = projectTaskMachineLeaseKey(scope);
    const tokens: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      await mutex.runExclusive(scope, async ({ fencingToken }) => {
        const lease = await store.get(key);
        expect(lease?.holder).toMatch(/^replica-a#/);
        expect(fencingToken).toBe(lease?.token);
        tokens.push(fencingToken!);
      });
      expect(await store.get(key)).toBeNull();
    }
    expect(tokens.map(BigInt)).toEqual([...tokens.map(BigInt)].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(tokens).size).toBe(3);
  });

  it("encodes the scope's parts into the lease key, so no two machines share one", () => {
    expect(projectTaskMachineLeaseKey(scope)).toBe("project-task-machine:t1:bot:p1");
    expect(projectTaskMachineLeaseKey({ tenantId: "a:b", assistantId: "c", projectId: "d" })).not.toBe(
      projectTaskMachineLeaseKey({ tenantId: "a", assistantId: "b:c", projectId: "d" }),
    );
  });

  it("aborts the operation's signal when the lease is lost, and the new holder keeps the lease", async () => {
    const { store, advance } = storeWithMovableClock();
    const mutex = new ProjectTaskExecutionMutex({ logger, leaseStore: store, ttlMs: 300 });
    const key = projectTaskMachineLeaseKey(scope);
    const reason = await mutex.runExclusive(scope, async ({ signal }) => {
      advance(1_000); // the store now sees the lease as expired
      expect(await store.tryAcquire(key, "successor#1", 60_000)).toBe(true);
      if (!signal.aborted) await once(signal, "abort");
      return signal.reason;
    });
    expect(reason).toBeInstanceOf(LeaseLostError);
    expect((await store.get(key))?.holder).toBe("successor#1");
  });

  it("waits for a lease held elsewhere, then runs with a larger token", async () => {
    const store = new InMemoryLeaseStore();
    const key = projectTaskMachineLeaseKey(scope);
    const peer = await store.acquire(key, "peer#1", 60_000);
    const mutex = new ProjectTaskExecutionMutex({ logger, leaseStore: store, retryDelayMs: 5, maxRetryDelayMs: 20 });
    let ran = false;
    const waiting = mutex.runExclusive(scope, async ({ fencingToken }) => {
      ran = true;
      return fencingToken;
    });
    await sleep(50);
    expect(ran).toBe(false);
    await store.release(key, "peer#1");
    expect(BigInt((await waiting)!)).toBeGreaterThan(BigInt(peer!.token));
  });

  it("gives up with a typed error when the lease stays taken, and the machine stays usable", async () => {
    const store = new InMemoryLeaseStore();
    const key = projectTaskMachineLeaseKey(scope);
    await store.acquire(key, "peer#1", 60_000);
    const mutex = new ProjectTaskExecutionMutex({ logger, leaseStore: store, acquireTimeoutMs: 100, retryDelayMs: 5, maxRetryDelayMs: 20 });
    let ran = false;
    const refused = mutex.runExclusive(scope, async () => {
      ran = true;
    });
    await expect(refused).rejects.toBeInstanceOf(LeaseAcquireTimeoutError);
    await expect(refused).rejects.toMatchObject({ code: "LEASE_ACQUIRE_TIMEOUT", key });
    expect(ran).toBe(false);
    await store.release(key, "peer#1");
    expect(await mutex.runExclusive(scope, async () => "after")).toBe("after");
  });

  it("bounds one call's wait for a lease held elsewhere by its own acquireTimeoutMs", async () => {
    const store = new InMemoryLeaseStore();
    const key = projectTaskMachineLeaseKey(scope);
    await store.acquire(key, "peer#1", 60_000);
    const mutex = new ProjectTaskExecutionMutex({ logger, leaseStore: store, acquireTimeoutMs: 60_000, retryDelayMs: 5, maxRetryDelayMs: 20 });
    const startedAt = Date.now();
    await expect(mutex.runExclusive(scope, async () => "ran", { acquireTimeoutMs: 100 })).rejects.toMatchObject({ code: "LEASE_ACQUIRE_TIMEOUT", key });
    expect(Date.now() - startedAt).toBeLessThan(1_000);
  });

  it("takes a lease only when given a lease store", async () => {
    const store = new InMemoryLeaseStore();
    expect(await new ProjectTaskExecutionMutex({ logger }).runExclusive(scope, async ({ fencingToken }) => fencingToken)).toBeUndefined();
    const mutex = new ProjectTaskExecutionMutex({ logger, leaseStore: store });
    const token = await mutex.runExclusive(scope, async ({ fencingToken }) => {
      expect((await store.get(projectTaskMachineLeaseKey(scope)))?.token).toBe(fencingToken);
      return fencingToken;
    });
    expect(token).toMatch(/^\d+$/);
  });
});
