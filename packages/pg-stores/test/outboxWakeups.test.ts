// NOTIFY wake-ups: a foreign event arrives long before the fallback poll, also after the LISTEN
// connection was killed server-side (the listener re-LISTENs on a new connection).
import { OutboxPoller } from "@axiom-lattice/core";
import { eventually } from "@axiom-lattice/testing";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgreSQLOutboxStore } from "../src";
import { useListenerDatabase } from "./support/listener";

const LISTENER_APP = "outbox-wakeup-test";
const FALLBACK_MS = 5_000;

const db = useListenerDatabase(LISTENER_APP);
let readerStore: PostgreSQLOutboxStore;
let writerStore: PostgreSQLOutboxStore;
let poller: OutboxPoller;
const arrivals = new Map<number, number>();

beforeAll(async () => {
  // Separate pools: the reader shares nothing with the writer but the database.
  readerStore = new PostgreSQLOutboxStore({ poolConfig: db.url, logger: db.logger, listenerApplicationName: LISTENER_APP });
  writerStore = new PostgreSQLOutboxStore({ poolConfig: db.url, logger: db.logger });
  await writerStore.initialize();
  poller = new OutboxPoller({
    logger: db.logger,
    store: readerStore,
    owner: "reader",
    intervalMs: FALLBACK_MS,
    handlers: {
      ping: async (payload) => {
        arrivals.set((payload as { n: number }).n, Date.now());
      },
    },
  });
  await poller.start();
});

afterAll(async () => {
  await poller.stop();
  await readerStore.dispose();
  await writerStore.dispose();
});

/** Waits until the poller has not polled for a while: no catch-up or quick re-poll is under way. */
async function quiet(): Promise<void> {
  let last = -1;
  await eventually("the poller to fall quiet", async () => {
    const polls = poller.stats().polls;
    const still = polls === last;
    last = polls;
    return still;
  }, { intervalMs: 250 });
}

/**
 * How soon a NOTIFY must deliver: half the fallback poll's 5 s, so only a NOTIFY explains it, with
 * room for a busy machine (1 s was missed on two loaded cores running other suites beside).
 */
const WAKE_UP_BOUND_MS = 2_500;

/** Appends ping `n` and resolves with how long it took to reach the handler (bounded by `withinMs`). */
async function ping(n: number, withinMs: number): Promise<number> {
  const sentAt = Date.now();
  await writerStore.append({ topic: "ping", payload: { n }, originReplicaId: "writer" });
  await eventually(`ping ${n} within ${withinMs} ms`, async () => arrivals.has(n), { timeoutMs: withinMs, intervalMs: 5 });
  return arrivals.get(n)! - sentAt;
}

describe("outbox wake-ups", () => {
  it("delivers a foreign event within 2.5 s, well before the fallback poll 5 s away", async () => {
    await db.listener.awaitListening();
    await quiet();
    expect(await ping(1, WAKE_UP_BOUND_MS)).toBeLessThan(WAKE_UP_BOUND_MS);
  });

  it("re-LISTENs after its connection is killed server-side, and wake-ups resume", async () => {
    for (let round = 2; round <= 3; round += 1) {
      await db.listener.killAndAwaitRelisten();
      // Let the catch-up poll that follows a re-LISTEN finish, so only a NOTIFY can explain a
      // delivery within the bound (the fallback is 5 s away).
      await quiet();
      expect(await ping(round, WAKE_UP_BOUND_MS)).toBeLessThan(WAKE_UP_BOUND_MS);
    }
    expect(poller.stats()).toMatchObject({ delivered: 3, failed: 0 });
    expect(db.warnings.filter((msg) => msg.includes("notification connection lost"))).toHaveLength(2);
  });

  it("catches up on what was appended while no connection was listening", async () => {
    await db.listener.kill();
    // Appended while the listener is down or reconnecting: no NOTIFY reaches it.
    await writerStore.append({ topic: "ping", payload: { n: 4 }, originReplicaId: "writer" });
    await eventually("the missed event, well before the fallback poll", async () => arrivals.has(4), { timeoutMs: 2_000 });
  });

  it("closes its LISTEN connection on dispose", async () => {
    const extra = new PostgreSQLOutboxStore({ poolConfig: db.url, logger: db.logger, listenerApplicationName: "outbox-dispose-test" });
    const unsubscribe = extra.subscribe(() => undefined);
    const count = async () =>
      (await db.admin.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'outbox-dispose-test'")).rowCount;
    await eventually("the extra listener", async () => (await count()) === 1);
    await extra.dispose();
    await eventually("the extra listener to go", async () => (await count()) === 0);
    unsubscribe();
    await sleep(100);
    expect(await count()).toBe(0);
  });
});
