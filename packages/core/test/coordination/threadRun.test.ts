import { once } from "node:events";
import { describe, expect, it } from "vitest";
import {
  getReplicaId,
  getThreadRunOwner,
  InMemoryLeaseStore,
  LEASE_LIST_MAX,
  LeaseLostError,
  ownedThreadRunKeys,
  threadRunLeaseKey,
  tryAcquireThreadRun,
  type ThreadRunScope,
} from "../../src";
import { recordingLogger, storeWithMovableClock } from "./support";

const scope: ThreadRunScope = { tenantId: "tenant-1", assistantId: "assistant-1", threadId: "thread-1" };

const { logger } = recordingLogger();

describe("threadRunLeaseKey", () => {
  it("is thread-run:<tenant>:<assistant>:<thread>", () => {
    expect(threadRunLeaseKey(scope)).toBe("thread-run:tenant-1:assistant-1:thread-1");
  });

  it("URI-encodes each part, so parts holding ':' cannot collide", () => {
    expect(threadRunLeaseKey({ tenantId: "t:1", assistantId: "a/b", threadId: "x y#%" })).toBe("thread-run:t%3A1:a%2Fb:x%20y%23%25");
    const left = threadRunLeaseKey({ tenantId: "a:b", assistantId: "c", threadId: "d" });
    const right = threadRunLeaseKey({ tenantId: "a", assistantId: "b:c", threadId: "d" });
    expect(left).not.toBe(right);
  });
});

describe("tryAcquireThreadRun", () => {
  it("returns null for a second acquisition while the first holds the thread", async () => {
    const store = new InMemoryLeaseStore();
    const first = await tryAcquireThreadRun(scope, { store, logger });
    expect(first).not.toBeNull();
    expect(await tryAcquireThreadRun(scope, { store, logger })).toBeNull();
    // Other threads are independent.
    expect(await tryAcquireThreadRun({ ...scope, threadId: "thread-2" }, { store, logger })).not.toBeNull();
    await first!.release();
    expect(await tryAcquireThreadRun(scope, { store, logger })).not.toBeNull();
  });

  it("hands out the token of the store's record", async () => {
    const store = new InMemoryLeaseStore();
    const handle = await tryAcquireThreadRun(scope, { store, logger });
    expect(await store.get(threadRunLeaseKey(scope))).toMatchObject({ token: handle!.token, holder: handle!.holder });
    await handle!.release();
  });

  it("releases idempotently: a second release does not remove the next owner's lease", async () => {
    const store = new InMemoryLeaseStore();
    const first = await tryAcquireThreadRun(scope, { store, logger });
    await first!.release();
    const second = await tryAcquireThreadRun(scope, { store, logger });
    await first!.release();
    expect((await store.get(threadRunLeaseKey(scope)))?.holder).toBe(second!.holder);
    await second!.release();
  });

  it("releases holder-scoped: an old handle cannot remove the lease of whoever took over", async () => {
    const { store, advance } = storeWithMovableClock();
    const stale = await tryAcquireThreadRun(scope, { store, ttlMs: 300, logger });
    advance(1_000); // the stale handle's lease expires under it
    const current = await tryAcquireThreadRun(scope, { store, logger });
    expect(current).not.toBeNull();

    await stale!.release();
    expect((await store.get(threadRunLeaseKey(scope)))?.holder).toBe(current!.holder);
    await current!.release();
  });

  it("aborts the handle's signal when ownership is lost", async () => {
    const { store, advance } = storeWithMovableClock();
    const handle = await tryAcquireThreadRun(scope, { store, ttlMs: 300, logger });
    advance(1_000);
    expect(await store.tryAcquire(threadRunLeaseKey(scope), "peer#1", 60_000)).toBe(true);
    if (!handle!.signal.aborted) await once(handle!.signal, "abort");
    expect(handle!.signal.reason).toBeInstanceOf(LeaseLostError);
    await handle!.release();
  });

  it("logs the loss to the logger it is given", async () => {
    const { store, advance } = storeWithMovableClock();
    const { logger: own, entries } = recordingLogger();
    const handle = await tryAcquireThreadRun(scope, { store, ttlMs: 300, logger: own });
    advance(1_000);
    expect(await store.tryAcquire(threadRunLeaseKey(scope), "peer#1", 60_000)).toBe(true);
    if (!handle!.signal.aborted) await once(handle!.signal, "abort");
    expect(entries.map((entry) => entry.msg)).toEqual([expect.stringMatching(/^lease lost/)]);
    await handle!.release();
  });
});

describe("getThreadRunOwner", () => {
  it("returns the owner's replica id while the thread is held, null otherwise", async () => {
    const store = new InMemoryLeaseStore();
    expect(await getThreadRunOwner(scope, { store })).toBeNull();
    const handle = await tryAcquireThreadRun(scope, { store, logger });
    expect(await getThreadRunOwner(scope, { store })).toBe(getReplicaId());
    await handle!.release();
    expect(await getThreadRunOwner(scope, { store })).toBeNull();

    await store.acquire(threadRunLeaseKey(scope), "replica-b:42#0f3e", 60_000);
    expect(await getThreadRunOwner(scope, { store })).toBe("replica-b:42");
  });
});

describe("ownedThreadRunKeys", () => {
  it("names every thread with a run owner, and no other lease", async () => {
    const store = new InMemoryLeaseStore();
    const running = await tryAcquireThreadRun(scope, { store, logger });
    const done = await tryAcquireThreadRun({ ...scope, threadId: "thread-2" }, { store, logger });
    await done!.release();
    await store.acquire("leader:maintenance", "someone", 60_000);
    expect(await ownedThreadRunKeys({ store })).toEqual(new Set([threadRunLeaseKey(scope)]));
    await running!.release();
  });

  it("answers null past one list's bound, so the caller asks per thread", async () => {
    const store = new InMemoryLeaseStore();
    for (let i = 0; i < LEASE_LIST_MAX; i += 1) await store.acquire(threadRunLeaseKey({ ...scope, threadId: `t${i}` }), "holder", 60_000);
    expect(await ownedThreadRunKeys({ store })).toBeNull();
  });
});
