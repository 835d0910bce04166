// A runtime with `executeRuns: false` (an `api` replica): it queues, streams and waits for runs,
// but every run is executed by a peer that runs messages (a `worker`).
import { InMemoryRunEventLog } from "@axiom-lattice/core";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { collect, manager, scope, thread, tokens, useSharedStores } from "./support";

describe("a runtime that executes no runs", () => {
  const stores = useSharedStores();

  it("queues a message and streams and waits for its run, which a peer executes", async () => {
    const runEvents = new InMemoryRunEventLog({ fences: stores.leases });
    manager(stores, { runEvents, replicaId: "worker", peerWakeDelayMs: 0 });
    const api = manager(stores, { runEvents, replicaId: "api", executeRuns: false, streamPollMs: 20 });

    const streamed = await api.getAgent(thread("t-stream")).addMessage({ message: "one two" }, { mode: "stream", messageId: "m-stream" });
    const chunks = await collect(streamed.stream);
    expect(tokens(chunks).join("")).toBe("echo: one two");
    expect(chunks.at(-1)).toMatchObject({ type: "message_completed", data: { status: "success" } });

    const waited = await api.getAgent(thread("t-wait")).addMessage({ message: "three" }, { mode: "wait", messageId: "m-wait" });
    expect(await waited.completion).toMatchObject({ status: "success" });

    for (const messageId of ["m-stream", "m-wait"]) expect((await stores.queue.getMessage(messageId, scope))?.replicaId).toBe("worker");
  });

  it("neither claims a message itself nor on its peers' wake-ups, has no queue sweep, and defers recovery to its peers", async () => {
    const notices: string[] = [];
    stores.wakeup.subscribe((notice) => void notices.push(notice.threadId));
    const first = manager(stores, { replicaId: "api-1", executeRuns: false, peerWakeDelayMs: 0 });
    manager(stores, { replicaId: "api-2", executeRuns: false, peerWakeDelayMs: 0 });

    await first.getAgent(thread("t-left")).addMessage({ message: "hello" }, { messageId: "m-left" });
    expect(await first.getAgent(thread("t-left")).resumeTask()).toEqual({ status: "busy", leaseContended: true });
    // Both replicas heard both wake-ups (an enqueue's, a recovery's) long before this; neither took the message.
    await sleep(100);
    expect(notices).toEqual(["t-left", "t-left"]);
    expect(await stores.queue.getMessage("m-left", scope)).toMatchObject({ status: "pending" });
    expect(() => first.startQueueSweep({ intervalMs: 1_000 })).toThrow(/runs no messages/);
  });

  it("reports a thread with nothing queued as it is, not as deferred", async () => {
    const api = manager(stores, { replicaId: "api", executeRuns: false, peerWakeDelayMs: 0 });
    expect(await api.getAgent(thread("t-quiet")).resumeTask()).toEqual({ status: "idle", leaseContended: false });
  });
});
