// NOTIFY wake-ups: a foreign event arrives long before the fallback poll, also after the LISTEN
// connection was killed server-side (the listener re-LISTENs on a new connection).
import { OutboxPoller, setLogger, type Logger } from "@axiom-lattice/core";
import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgreSQLOutboxStore } from "../src";
import { eventually } from "./support/eventually";

const LISTENER_APP = "outbox-wakeup-test";
const FALLBACK_MS = 5_000;

let database: TestDatabase;
let admin: Pool;
let readerStore: PostgreSQLOutboxStore;
let writerStore: PostgreSQLOutboxStore;
let poller: OutboxPoller;
const arrivals = new Map<number, number>();
const warnings: string[] = [];

beforeAll(async () => {
  // The killed connections are logged as warnings: keep them off the test output, and check them.
  const logger: Logger = { debug() {}, info() {}, error() {}, warn: (_fields, msg) => warnings.push(msg ?? ""), child: () => logger };
  setLogger(logger);
  database = await createTestDatabase();
  admin = new Pool({ connectionString: database.url, max: 1 });
  // Separate pools: the reader shares nothing with the writer but the database.
  readerStore = new PostgreSQLOutboxStore({ poolConfig: database.url, listenerApplicationName: LISTENER_APP });
  writerStore = new PostgreSQLOutboxStore({ poolConfig: database.url });
  await writerStore.initialize();
  poller = new OutboxPoller({
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
  await admin.end();
  await database.drop();
});

/** The backend LISTENing for the reader, once its LISTEN has completed. */
async function listeningBackend(): Promise<number | undefined> {
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = $1 AND state = 'idle' AND query LIKE 'LISTEN%'`,
    [LISTENER_APP],
  );
  return rows.length === 1 ? rows[0].pid : undefined;
}

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

/** Appends ping `n` and resolves with how long it took to reach the handler (bounded by `withinMs`). */
async function ping(n: number, withinMs: number): Promise<number> {
  const sentAt = Date.now();
  await writerStore.append({ topic: "ping", payload: { n }, originReplicaId: "writer" });
  await eventually(`ping ${n} within ${withinMs} ms`, async () => arrivals.has(n), { timeoutMs: withinMs, intervalMs: 5 });
  return arrivals.get(n)! - sentAt;
}

describe("outbox wake-ups", () => {
  it("delivers a foreign event in well under a second although the fallback poll is 5 s away", async () => {
    await eventually("the listener", async () => (await listeningBackend()) !== undefined);
    await quiet();
    expect(await ping(1, 1_000)).toBeLessThan(1_000);
  });

  it("re-LISTENs after its connection is killed server-side, and wake-ups resume", async () => {
    for (let round = 2; round <= 3; round += 1) {
      const killed = await listeningBackend();
      expect(killed).toBeDefined();
      const { rows } = await admin.query<{ ok: boolean }>("SELECT pg_terminate_backend($1) AS ok", [killed]);
      expect(rows[0].ok).toBe(true);
      await eventually("a new LISTEN connection", async () => {
        const pid = await listeningBackend();
        return pid !== undefined && pid !== killed;
      });
      // Let the catch-up poll that follows a re-LISTEN finish, so only a NOTIFY can explain a
      // delivery within a second (the fallback is 5 s away).
      await quiet();
      expect(await ping(round, 1_000)).toBeLessThan(1_000);
    }
    expect(poller.stats()).toMatchObject({ delivered: 3, failed: 0 });
    expect(warnings.filter((msg) => msg.includes("notification connection lost"))).toHaveLength(2);
  });

  it("catches up on what was appended while no connection was listening", async () => {
    const killed = await listeningBackend();
    await admin.query("SELECT pg_terminate_backend($1)", [killed]);
    // Appended while the listener is down or reconnecting: no NOTIFY reaches it.
    await writerStore.append({ topic: "ping", payload: { n: 4 }, originReplicaId: "writer" });
    await eventually("the missed event, well before the fallback poll", async () => arrivals.has(4), { timeoutMs: 2_000 });
  });

  it("closes its LISTEN connection on dispose", async () => {
    const extra = new PostgreSQLOutboxStore({ poolConfig: database.url, listenerApplicationName: "outbox-dispose-test" });
    const unsubscribe = extra.subscribe(() => undefined);
    const count = async () =>
      (await admin.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'outbox-dispose-test'")).rowCount;
    await eventually("the extra listener", async () => (await count()) === 1);
    await extra.dispose();
    await eventually("the extra listener to go", async () => (await count()) === 0);
    unsubscribe();
    await sleep(100);
    expect(await count()).toBe(0);
  });
});
