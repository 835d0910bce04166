// Queue notices through LISTEN/NOTIFY: delivered across pools (wake-ups and abort notices), sent
// together when they come at once, malformed payloads ignored, and delivered again after the LISTEN
// connection was killed server-side.
import type { QueueNotice } from "@axiom-lattice/core";
import { eventually } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgreSQLQueueWakeup, QUEUE_WAKEUP_CHANNEL } from "../../src";
import { useListenerDatabase } from "../support/listener";

const LISTENER_APP = "queue-wakeup-test";

const db = useListenerDatabase(LISTENER_APP);
let sender: PostgreSQLQueueWakeup;
let receiver: PostgreSQLQueueWakeup;
const received: QueueNotice[] = [];

beforeAll(async () => {
  // Separate pools, as on two replicas.
  sender = new PostgreSQLQueueWakeup({ poolConfig: db.url, logger: db.logger });
  receiver = new PostgreSQLQueueWakeup({ poolConfig: db.url, logger: db.logger, listenerApplicationName: LISTENER_APP });
  receiver.subscribe((scope) => received.push(scope));
  await db.listener.awaitListening();
});

afterAll(async () => {
  await sender.dispose();
  await receiver.dispose();
});

const scope = (threadId: string) => ({ tenantId: "tenant", assistantId: "assistant", threadId });
const arrived = (threadId: string) => eventually(`wake-up for ${threadId}`, async () => received.some((got) => got.threadId === threadId), { timeoutMs: 5_000, intervalMs: 5 });

describe("PostgreSQLQueueWakeup", () => {
  it("delivers a thread scope notified on one pool to a subscriber on another", async () => {
    await sender.notify(scope("t1"));
    await arrived("t1");
    expect(received.find((got) => got.threadId === "t1")).toEqual(scope("t1"));
  });

  it("carries an abort notice, and only a notice's own fields", async () => {
    await sender.notify({ ...scope("t2"), abortRequested: true, extra: "not sent" } as QueueNotice);
    await arrived("t2");
    expect(received.find((got) => got.threadId === "t2")).toEqual({ ...scope("t2"), abortRequested: true });
  });

  it("carries a notice that the thread waits at its sender", async () => {
    await sender.notify({ ...scope("t3"), waitsAtSender: true });
    await arrived("t3");
    expect(received.find((got) => got.threadId === "t3")).toEqual({ ...scope("t3"), waitsAtSender: true });
  });

  it("sends the notices given in one turn, or while one statement is in flight, in one statement, each delivered once", async () => {
    let statements = 0;
    sender["pool"].on("acquire", () => (statements += 1));
    const threads = Array.from({ length: 30 }, (_, n) => `batched-${n}`);
    const first = threads.slice(0, 10).map((threadId) => sender.notify(scope(threadId)));
    // The next turn: the first statement is in flight (or sent), so these wait and go together.
    await new Promise((resolve) => setImmediate(resolve));
    const second = threads.slice(10).map((threadId) => sender.notify(scope(threadId)));
    await Promise.all([...first, ...second]);
    expect(statements).toBe(2);
    for (const threadId of threads) await arrived(threadId);
    expect(received.filter((got) => got.threadId.startsWith("batched-")).map((got) => got.threadId)).toEqual(threads);
  });

  it("ignores malformed payloads", async () => {
    await db.admin.query("SELECT pg_notify($1, $2)", [QUEUE_WAKEUP_CHANNEL, "not json"]);
    await db.admin.query("SELECT pg_notify($1, $2)", [QUEUE_WAKEUP_CHANNEL, JSON.stringify({ threadId: 7 })]);
    await sender.notify(scope("after-garbage"));
    await arrived("after-garbage");
    expect(received.every((got) => typeof got.threadId === "string" && typeof got.tenantId === "string")).toBe(true);
    expect(db.warnings.filter((warning) => warning.includes("malformed"))).toHaveLength(2);
  });

  it("re-establishes the LISTEN connection after it is killed", async () => {
    await db.listener.killAndAwaitRelisten();
    await sender.notify(scope("after-reconnect"));
    await arrived("after-reconnect");
  });
});
