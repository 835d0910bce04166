import type { LeaseRecord, LeaseStore } from "@axiom-lattice/protocols";
import { beforeEach, describe, expect, it } from "vitest";
import { createTaskRunLiveness, InMemoryLeaseStore, taskRunLeaseKey, threadRunLeaseKey, type ThreadRunScope, type Logger } from "../../src";
import { type LogEntry, recordingLogger } from "./support";

/** A store that cannot be reached: every call fails. */
class UnreachableLeaseStore implements LeaseStore {
  private fail(): Promise<never> {
    return Promise.reject(new Error("connect ECONNREFUSED"));
  }
  acquire(): Promise<LeaseRecord | null> {
    return this.fail();
  }
  tryAcquire(): Promise<boolean> {
    return this.fail();
  }
  renew(): Promise<boolean> {
    return this.fail();
  }
  release(): Promise<boolean> {
    return this.fail();
  }
  get(): Promise<LeaseRecord | null> {
    return this.fail();
  }
  list(): Promise<LeaseRecord[]> {
    return this.fail();
  }
}

const thread: ThreadRunScope = { tenantId: "t", assistantId: "a", threadId: "th" };

let logs: LogEntry[];
let logger: Logger;
beforeEach(() => {
  ({ logger, entries: logs } = recordingLogger());
});

describe("createTaskRunLiveness", () => {
  it("answers live while the task-run lease is held", async () => {
    const store = new InMemoryLeaseStore();
    const live = createTaskRunLiveness({ store, logger });
    await store.acquire(taskRunLeaseKey("task-1"), "replica-a#1", 60_000);
    expect(await live({ taskId: "task-1" })).toBe(true);
    expect(await live({ taskId: "task-1", thread })).toBe(true);
  });

  it("answers live while the task's thread-run lease is held", async () => {
    const store = new InMemoryLeaseStore();
    const live = createTaskRunLiveness({ store, logger });
    await store.acquire(threadRunLeaseKey(thread), "replica-a#1", 60_000);
    expect(await live({ taskId: "task-2", thread })).toBe(true);
  });

  it("answers not live when neither lease is held", async () => {
    const store = new InMemoryLeaseStore();
    const live = createTaskRunLiveness({ store, logger });
    await store.acquire(taskRunLeaseKey("another-task"), "replica-a#1", 60_000);
    await store.acquire(threadRunLeaseKey({ ...thread, threadId: "another-thread" }), "replica-a#1", 60_000);
    expect(await live({ taskId: "task-3" })).toBe(false);
    expect(await live({ taskId: "task-3", thread })).toBe(false);
  });

  it("answers live when the store fails (fail-safe), and logs why", async () => {
    const live = createTaskRunLiveness({ store: new UnreachableLeaseStore(), logger });
    expect(await live({ taskId: "task-4" })).toBe(true);
    expect(await live({ taskId: "task-4", thread })).toBe(true);
    expect(logs.filter((entry) => entry.level === "warn")).toHaveLength(2);
  });
});
