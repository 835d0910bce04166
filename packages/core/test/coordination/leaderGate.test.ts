import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { getReplicaId, holderLabel, InMemoryLeaseStore, runAsLeader, type Logger } from "../../src";
import { FailingReleaseStore, type LogEntry, recordingLogger } from "./support";

/** Counts acquisition attempts, to show a loser does not retry. */
class CountingStore extends InMemoryLeaseStore {
  attempts = 0;

  override async acquire(key: string, holder: string, ttlMs: number) {
    this.attempts += 1;
    return super.acquire(key, holder, ttlMs);
  }
}

let logs: LogEntry[];
let logger: Logger;
beforeEach(() => {
  ({ logger, entries: logs } = recordingLogger());
});
afterEach(() => {
  vi.useRealTimers();
});

describe("runAsLeader", () => {
  it("runs fn on the winner and returns its result", async () => {
    expect(await runAsLeader(new InMemoryLeaseStore(), "recovery", async () => 7, { logger })).toEqual({ ran: true, result: 7 });
  });

  it("returns { ran: false } at once for the loser, after one attempt, without calling fn", async () => {
    const store = new CountingStore();
    await store.acquire("leader:recovery", "peer-replica#1", 60_000);
    store.attempts = 0;
    const fn = vi.fn(async () => "work");

    expect(await runAsLeader(store, "recovery", fn, { logger })).toEqual({ ran: false });
    expect(fn).not.toHaveBeenCalled();
    expect(store.attempts).toBe(1);
  });

  it("lets exactly one of several simultaneous callers run", async () => {
    const store = new InMemoryLeaseStore();
    const fn = vi.fn(async () => "work");
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => runAsLeader(store, "once", fn, { logger })));
    expect(outcomes.filter((outcome) => outcome.ran)).toHaveLength(1);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("with hold: false releases the lease when fn ends, so the next caller runs", async () => {
    const store = new InMemoryLeaseStore();
    await runAsLeader(store, "job", async () => undefined, { logger, hold: false });
    expect(await store.get("leader:job")).toBeNull();
    expect((await runAsLeader(store, "job", async () => "again", { logger })).ran).toBe(true);
  });

  it("with hold: false releases the lease when fn throws", async () => {
    const store = new InMemoryLeaseStore();
    await expect(
      runAsLeader(store, "job", async () => {
        throw new Error("boom");
      }, { logger }),
    ).rejects.toThrow("boom");
    expect(await store.get("leader:job")).toBeNull();
  });

  it("with hold: true keeps the lease after fn ends until its ttl runs out, without renewing it", async () => {
    vi.useFakeTimers();
    const store = new InMemoryLeaseStore();
    expect((await runAsLeader(store, "startup", async () => "done", { logger, hold: true, ttlMs: 60_000 })).ran).toBe(true);

    const held = await store.get("leader:startup");
    expect(held && holderLabel(held.holder)).toBe(getReplicaId());
    expect(await runAsLeader(store, "startup", async () => "skipped", { logger, ttlMs: 60_000 })).toEqual({ ran: false });

    await vi.advanceTimersByTimeAsync(60_000);
    expect(await store.get("leader:startup")).toBeNull();
    expect((await runAsLeader(store, "startup", async () => "later", { logger })).ran).toBe(true);
  });

  it("logs to the logger it is given, not to the one other calls were given", async () => {
    const { logger, entries } = recordingLogger();
    expect(await runAsLeader(new FailingReleaseStore(), "job", async () => 1, { logger })).toEqual({ ran: true, result: 1 });
    expect(entries.map((entry) => entry.msg)).toEqual([expect.stringContaining("release failed")]);
    expect(logs).toEqual([]);
  });
});
