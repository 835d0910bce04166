// The outbox across real processes: a notifier event published in one replica process reaches a
// peer process once, and its publisher's own listeners once.
import { TASK_LIFECYCLE_TOPIC, type TaskLifecycleEvent } from "@axiom-lattice/protocols";
import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgreSQLOutboxStore } from "../src";
import { Child } from "./support/children";

let database: TestDatabase;
let store: PostgreSQLOutboxStore;

beforeAll(async () => {
  database = await createTestDatabase();
  store = new PostgreSQLOutboxStore({ poolConfig: database.url });
  await store.initialize();
});

afterAll(async () => {
  await store.dispose();
  await database.drop();
});

interface PeerResult {
  replicaId: string;
  heard: TaskLifecycleEvent[];
  stats: { delivered: number; skippedOwn: number; failed: number };
}

describe("task lifecycle events across processes", () => {
  it("reach a peer process once, and the publisher's own listeners once", async () => {
    const event: TaskLifecycleEvent = { tenantId: "tenant-1", taskId: "task-42", status: "completed", updatedAt: "2024-01-02T03:04:05.000Z" };
    const sentinel: TaskLifecycleEvent = { ...event, taskId: "sentinel" };
    const listener = new Child("outboxNotifierPeer.mjs", { url: database.url, replicaId: "replica-b", role: "listener", sentinelTaskId: "sentinel" });
    await listener.next("READY");
    const publisher = new Child("outboxNotifierPeer.mjs", { url: database.url, replicaId: "replica-a", role: "publisher", event });
    await publisher.next("READY");

    publisher.go();
    const published = await publisher.result<PeerResult>();
    expect(published.replicaId).toBe("replica-a");
    expect(published.heard).toEqual([event]);
    expect(published.stats).toMatchObject({ skippedOwn: 1, delivered: 0, failed: 0 });

    // An event appended after A's lets B's run end: once B has heard it, B's poller has passed A's.
    await store.append({ topic: TASK_LIFECYCLE_TOPIC, payload: sentinel, originReplicaId: "test-runner" });
    listener.go();
    const peer = await listener.result<PeerResult>();
    expect(peer.replicaId).toBe("replica-b");
    expect(peer.heard).toEqual([event, sentinel]);
    expect(peer.stats).toMatchObject({ delivered: 2, skippedOwn: 0, failed: 0 });

    const [appended] = await store.listAfter(null, 1);
    expect(appended).toMatchObject({ topic: TASK_LIFECYCLE_TOPIC, payload: event, originReplicaId: "replica-a" });
  }, 30_000);
});
