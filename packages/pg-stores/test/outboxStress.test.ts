// 8 concurrent appenders commit 10k events in transactions of random size and random commit delay
// (so commits land out of id order); 2 poller processes must each receive every foreign event
// exactly once, in cursor order.
import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgreSQLOutboxStore } from "../src";
import { Child } from "./support/children";

const TOTAL = 10_000;
const APPENDERS = 8;
const POLLERS = ["poller-1", "poller-2"];

let database: TestDatabase;
let pool: Pool;
let store: PostgreSQLOutboxStore;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new Pool({ connectionString: database.url, max: APPENDERS });
  store = new PostgreSQLOutboxStore({ pool });
  await store.initialize();
});

afterAll(async () => {
  await store.dispose();
  await pool.end();
  await database.drop();
});

/** Every tenth event comes from poller-1, every tenth (offset 5) from poller-2: each must skip its own. */
const originOf = (seq: number) => (seq % 10 === 0 ? "poller-1" : seq % 10 === 5 ? "poller-2" : "appender");

interface Committed {
  firstId: bigint;
  order: number;
}

it("delivers every foreign event exactly once to each of 2 poller processes, under out-of-order commits", async () => {
  const expected = (owner: string) => Array.from({ length: TOTAL }, (_, seq) => seq).filter((seq) => originOf(seq) !== owner);
  const pollers = POLLERS.map((owner) => new Child("outboxStressPoller.mjs", { url: database.url, owner, expected: expected(owner).length }));
  await Promise.all(pollers.map((child) => child.next("READY")));

  let nextSeq = 0;
  let commits = 0;
  const committed: Committed[] = [];
  const appender = async () => {
    const client = await pool.connect();
    // Durability is not under test; flushing WAL at every commit would only slow the test down.
    // Visibility and ordering of commits (what the outbox relies on) are unchanged.
    await client.query("SET synchronous_commit = off");
    try {
      while (nextSeq < TOTAL) {
        await client.query("BEGIN");
        let firstId: bigint | undefined;
        const size = 1 + Math.floor(Math.random() * 6);
        for (let i = 0; i < size && nextSeq < TOTAL; i += 1) {
          const seq = nextSeq++;
          const event = await store.append({ topic: "stress", payload: { seq }, originReplicaId: originOf(seq) }, { client });
          firstId ??= BigInt(event.id);
        }
        // Hold the transaction open a random while (0–4 ms): later transactions overtake it.
        await sleep(Math.random() * 4);
        await client.query("COMMIT");
        committed.push({ firstId: firstId!, order: commits++ });
      }
    } finally {
      await client.query("RESET synchronous_commit");
      client.release();
    }
  };
  await Promise.all(Array.from({ length: APPENDERS }, appender));

  // The scenario must really contain commits out of id order, or the test proves nothing.
  const overtaken = committed.filter((tx, index) => committed.slice(index + 1).some((later) => later.firstId < tx.firstId)).length;
  expect(overtaken).toBeGreaterThan(100);

  for (const child of pollers) child.go();
  const results = await Promise.all(pollers.map((child) => child.result<{ seqs: number[]; outOfOrder: number; stats: Record<string, number> }>()));
  results.forEach((result, index) => {
    const owner = POLLERS[index];
    const want = expected(owner);
    // No duplicate, no gap, nothing of its own.
    expect(result.seqs.length).toBe(want.length);
    expect(new Set(result.seqs).size).toBe(want.length);
    expect([...result.seqs].sort((a, b) => a - b)).toEqual(want);
    expect(result.outOfOrder).toBe(0);
    expect(result.stats).toMatchObject({ delivered: want.length, skippedOwn: TOTAL / 10, failed: 0, pollErrors: 0 });
  });
}, 60_000);
