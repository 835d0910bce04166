// B1 (performance.md): messages/s claimed + completed through ThreadMessageQueueStore by 4 concurrent
// claimers (each on its own connection, like replicas) across 200 threads, zero duplicates, against a
// raw single-statement UPDATE … FOR UPDATE SKIP LOCKED claim + DELETE loop on an equivalent bare
// table, with the same batch size, measured in the same run.
import { ThreadMessageQueueStore } from "@axiom-lattice/pg-stores";
// The database helper alone: the package root also holds vitest suites, which a plain script cannot load.
import { createTestDatabase } from "@axiom-lattice/testing/database";
import { performance } from "node:perf_hooks";
import { Client, Pool } from "pg";
import { type Figure, median } from "../figure";

const CLAIMERS = 4;
const THREADS = 200;
// The agent runtime claims one message at a time under its thread-run lease.
const BATCH = 1;
// Many short alternating runs: on a shared machine load comes in bursts, and medians over many pairs
// let both sides see the same mix of them.
const REPETITIONS = 7;
const TARGET = 0.8;
// Per run, per side. performance.md names 20k in all; 7 runs of 2k per side keep the figure under ~30 s
// on 2 cores (B1_MESSAGES overrides, e.g. for the 4x volume check).
const MESSAGES = Number(process.env.B1_MESSAGES ?? 2_000);
const LEASE_MS = 60_000;

// The queue table's claim-relevant columns and claim index, without the store's run record and lease.
const BARE_TABLE = `
  CREATE TABLE bench_bare_queue (
    id        text    PRIMARY KEY,
    thread_id text    NOT NULL,
    content   jsonb   NOT NULL,
    priority  integer NOT NULL DEFAULT 0,
    sequence  bigint  NOT NULL,
    status    text    NOT NULL DEFAULT 'pending'
  );
  CREATE INDEX bench_bare_queue_claim ON bench_bare_queue (thread_id, priority DESC, sequence) WHERE status = 'pending'`;
const BARE_CLAIM = `
  UPDATE bench_bare_queue
     SET status = 'processing'
   WHERE id IN (SELECT id
                  FROM bench_bare_queue
                 WHERE thread_id = $1 AND status = 'pending'
                 ORDER BY priority DESC, sequence
                 LIMIT $2
                   FOR UPDATE SKIP LOCKED)
  RETURNING id`;
const BARE_DELETE = "DELETE FROM bench_bare_queue WHERE id = ANY($1::text[])";

// Both sides start each repetition from the same queue: MESSAGES pending rows spread over THREADS.
const FILL_STORE = `
  INSERT INTO lattice_thread_message_queue (id, thread_id, content, priority, sequence, status, run_status)
  SELECT 'm' || n, 'thread-' || (n % ${THREADS}), '{"text":"hello"}', 0, nextval('lattice_thread_message_queue_sequence'), 'pending', 'pending'
    FROM generate_series(1, $1) AS n`;
const FILL_BARE = `
  INSERT INTO bench_bare_queue (id, thread_id, content, sequence)
  SELECT 'm' || n, 'thread-' || (n % ${THREADS}), '{"text":"hello"}', n
    FROM generate_series(1, $1) AS n`;

/** Claims up to BATCH messages of a thread and completes them; returns the ids it processed. */
type ClaimAndComplete = (claimer: number, threadId: string) => Promise<string[]>;

/**
 * Messages/s for CLAIMERS loops that each walk the threads round-robin (from their own offset, so they
 * meet on busy threads) until every thread is empty. Throws if any message was processed twice or never.
 */
async function messagesPerSecond(step: ClaimAndComplete): Promise<number> {
  const startedAt = performance.now();
  const processed = await Promise.all(
    Array.from({ length: CLAIMERS }, async (_, claimer) => {
      const mine: string[] = [];
      const open = Array.from({ length: THREADS }, (_, t) => `thread-${(t + (claimer * THREADS) / CLAIMERS) % THREADS}`);
      while (open.length > 0) {
        for (let i = 0; i < open.length; ) {
          const ids = await step(claimer, open[i]);
          if (ids.length === 0) open.splice(i, 1);
          else {
            mine.push(...ids);
            i += 1;
          }
        }
      }
      return mine;
    }),
  );
  const elapsedMs = performance.now() - startedAt;
  const all = processed.flat();
  const duplicates = all.length - new Set(all).size;
  if (duplicates > 0 || all.length !== MESSAGES) {
    throw new Error(`B1: ${all.length} messages processed for ${MESSAGES} queued, ${duplicates} duplicates`);
  }
  return (MESSAGES * 1_000) / elapsedMs;
}

export const b1Queue: Figure = {
  id: "B1",
  title: `queue claim+complete messages/s, ${CLAIMERS} claimers, ${THREADS} threads, ${MESSAGES} messages, batch ${BATCH}`,
  async run() {
    const database = await createTestDatabase("lattice_bench_b1");
    const admin = new Pool({ connectionString: database.url, max: 1 });
    const stores = Array.from({ length: CLAIMERS }, () => new ThreadMessageQueueStore({ poolConfig: { connectionString: database.url, max: 1, idleTimeoutMillis: 0 } }));
    const clients = Array.from({ length: CLAIMERS }, () => new Client({ connectionString: database.url }));
    try {
      await Promise.all(stores.map((store) => store.initialize()));
      await admin.query(BARE_TABLE);
      await Promise.all(clients.map((client) => client.connect()));

      const throughStore: ClaimAndComplete = async (claimer, threadId) => {
        const owner = `bench-${claimer}#${claimer}`;
        const claimed = await stores[claimer].claimPendingMessages(threadId, undefined, { owner, leaseMs: LEASE_MS, limit: BATCH });
        for (const message of claimed) {
          if (!(await stores[claimer].completeMessage(message.id, owner, { status: "success" }))) throw new Error(`B1: lost claim ${message.id}`);
        }
        return claimed.map((message) => message.id);
      };
      const bare: ClaimAndComplete = async (claimer, threadId) => {
        const { rows } = await clients[claimer].query<{ id: string }>(BARE_CLAIM, [threadId, BATCH]);
        const ids = rows.map((row) => row.id);
        if (ids.length > 0) await clients[claimer].query(BARE_DELETE, [ids]);
        return ids;
      };
      const prepare = async (side: "store" | "bare") => {
        await admin.query(side === "store" ? "TRUNCATE lattice_thread_message_queue" : "TRUNCATE bench_bare_queue");
        await admin.query(side === "store" ? FILL_STORE : FILL_BARE, [MESSAGES]);
        await admin.query(side === "store" ? "VACUUM ANALYZE lattice_thread_message_queue" : "VACUUM ANALYZE bench_bare_queue");
      };

      // A first, unrecorded round connects every claimer and prepares the store's statements.
      for (const side of ["store", "bare"] as const) {
        await prepare(side);
        await messagesPerSecond(side === "store" ? throughStore : bare);
      }
      const storeRuns: number[] = [];
      const bareRuns: number[] = [];
      for (let rep = 0; rep < REPETITIONS; rep += 1) {
        // Alternate which side goes first, so drift on a shared machine does not favour one side.
        for (const side of rep % 2 === 0 ? (["store", "bare"] as const) : (["bare", "store"] as const)) {
          await prepare(side);
          if (side === "store") storeRuns.push(await messagesPerSecond(throughStore));
          else bareRuns.push(await messagesPerSecond(bare));
        }
      }

      const value = median(storeRuns);
      const baseline = median(bareRuns);
      const ratio = value / baseline;
      return {
        unit: "msg/s",
        value,
        baseline,
        ratio,
        target: TARGET,
        ok: ratio >= TARGET,
        raw: { claimers: CLAIMERS, threads: THREADS, messages: MESSAGES, batch: BATCH, repetitions: REPETITIONS, storeRuns, bareRuns, duplicates: 0 },
      };
    } finally {
      await Promise.all(stores.map((store) => store.dispose()));
      await Promise.all(clients.map((client) => client.end()));
      await admin.end();
      await database.drop();
    }
  },
};
