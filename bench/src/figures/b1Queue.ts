// B1 (performance.md, issue 26): messages/s claimed + completed through PostgreSQLMessageQueueStore by 4
// concurrent claimers (each on its own connection, like replicas) across 200 threads, zero duplicates,
// beside two baselines measured in the same run on the same database:
// - graphile-worker 0.17 (a maintained PostgreSQL job queue) draining the same number of jobs that do
//   nothing, `concurrency: 4` on a pool of its default size (10), in both of its modes: plain (any job
//   to any worker) and `queue_name` per thread (jobs of one queue run one at a time, in order);
// - a raw UPDATE … FOR UPDATE SKIP LOCKED claim, then one statement per message that deletes it and
//   claims the next, on an equivalent bare table, with the same batch size and walk (what the store's
//   SQL costs beyond the minimum).
// Like for like: the store's claim, then complete-and-claim-next (`completeAndClaimNext`, one
// statement per message) until the thread is empty, claimers walking the threads, against
// graphile-worker's plain mode (neither orders a thread's messages: claimers meet on threads); the
// store under the thread-run lease, each thread drained by one claimer as the agent runtime's thread
// processor drains it once woken (acquire, take back stale claims, claim, complete-and-claim until
// empty, release, look again; every claim fenced), against `queue_name` mode. The figure's ratio is
// the latter pair's: per-thread order is what the gateway promises.
import { type ClaimMessagesOptions, defaultLogger, tryAcquireThreadRun } from "@axiom-lattice/core";
import { PostgreSQLLeaseStore, PostgreSQLMessageQueueStore } from "@axiom-lattice/pg-stores";
// The database helper alone: the package root also holds vitest suites, which a plain script cannot load.
import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing/database";
import { EventEmitter } from "node:events";
import { performance } from "node:perf_hooks";
import { Logger, runMigrations, runOnce, type WorkerEvents } from "graphile-worker";
import { Client, Pool } from "pg";
import { type Figure, median } from "../figure";

const CLAIMERS = Number(process.env.B1_CLAIMERS ?? 4);
const THREADS = 200;
// The agent runtime claims one message at a time under its thread-run lease (and completes it with
// the next claim), as the store sides do.
const BATCH = 1;
// Each repetition runs every side on a fresh database, in a rotating order, so drift on a shared
// machine does not favour one side.
const REPETITIONS = 5;
// Our queue against graphile-worker, serialised per thread/queue (issue 42: ≥ 1.2) and unordered; and
// the store's SQL against the bare minimum.
const TARGET_VS_GRAPHILE = 1.2;
const TARGET_VS_GRAPHILE_PLAIN = 1.0;
const TARGET_VS_BARE = 0.8;
// Per run, per side. performance.md names 20k in all; 5 runs of 2k per side keep the figure under ~1
// minute on 2 cores (B1_MESSAGES overrides, e.g. for the 4x volume check).
const MESSAGES = Number(process.env.B1_MESSAGES ?? 2_000);
// A first, unrecorded run per side and database prepares statements and fills connection caches.
const WARM_UP_MESSAGES = 200;
const LEASE_MS = 60_000;
const GRAPHILE_POOL_SIZE = 10;
const TENANT = "default";
const ASSISTANT = "bench";

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
/** $1 thread, $2 limit, $3 the ids of the thread's messages just processed, deleted as the next are claimed. */
const BARE_DELETE_AND_CLAIM = `
  WITH done AS (
    DELETE FROM bench_bare_queue
     WHERE id = ANY($3::text[])
  )
  ${BARE_CLAIM}`;

// Every side starts from the same queue: $1 pending messages spread round-robin over THREADS.
const FILL_STORE = `
  INSERT INTO lattice_thread_message_queue (id, thread_id, tenant_id, assistant_id, content, priority, sequence, status, run_status)
  SELECT 'm' || n, 'thread-' || (n % ${THREADS}), '${TENANT}', '${ASSISTANT}', '{"text":"hello"}', 0, nextval('lattice_thread_message_queue_sequence'), 'pending', 'pending'
    FROM generate_series(1, $1) AS n`;
const FILL_BARE = `
  INSERT INTO bench_bare_queue (id, thread_id, content, sequence)
  SELECT 'm' || n, 'thread-' || (n % ${THREADS}), '{"text":"hello"}', n
    FROM generate_series(1, $1) AS n`;
/** $2: whether each job goes to its thread's named queue. One add_jobs call, as a bulk enqueue is made. */
const FILL_GRAPHILE = `
  SELECT count(*) FROM graphile_worker.add_jobs(ARRAY(
    SELECT ROW('noop', '{"text":"hello"}'::json, CASE WHEN $2 THEN 'thread-' || (n % ${THREADS}) END,
               NULL, NULL, NULL, NULL, NULL)::graphile_worker.job_spec
      FROM generate_series(1, $1) AS n))`;
const GRAPHILE_LEFT = "SELECT count(*)::int AS left FROM graphile_worker._private_jobs";

const SIDES = ["store", "storeUnderLease", "bare", "graphile", "graphileQueues"] as const;
type Side = (typeof SIDES)[number];

/** Processes a thread's messages (up to all of them); returns the ids it processed. */
type ClaimAndComplete = (claimer: number, threadId: string) => Promise<string[]>;

const threadName = (t: number) => `thread-${t % THREADS}`;

/** Messages/s for CLAIMERS loops; throws if any message was processed twice or never. */
async function timedDrain(count: number, claimer: (index: number) => Promise<string[]>): Promise<number> {
  const startedAt = performance.now();
  const processed = await Promise.all(Array.from({ length: CLAIMERS }, (_, index) => claimer(index)));
  const elapsedMs = performance.now() - startedAt;
  const all = processed.flat();
  const duplicates = all.length - new Set(all).size;
  if (duplicates > 0 || all.length !== count) throw new Error(`B1: ${all.length} messages processed for ${count} queued, ${duplicates} duplicates`);
  return (count * 1_000) / elapsedMs;
}

/**
 * CLAIMERS loops that each walk the threads (from their own offset, so they meet on busy threads),
 * draining each one they visit, until every thread is empty. A thread a claimer found empty is passed
 * over by the others, as replicas leave a thread whose wake-up another took: the queue has no claim
 * of "any thread", so this is what stands for graphile-worker's `get_job` finding any job.
 */
function drainByWalking(count: number, drainThread: ClaimAndComplete): Promise<number> {
  const drained = new Set<string>();
  return timedDrain(count, async (claimer) => {
    const mine: string[] = [];
    for (let t = 0; t < THREADS; t += 1) {
      const threadId = threadName(t + Math.floor((claimer * THREADS) / CLAIMERS));
      if (drained.has(threadId)) continue;
      mine.push(...(await drainThread(claimer, threadId)));
      drained.add(threadId);
    }
    return mine;
  });
}

/**
 * CLAIMERS loops that each take the next thread woken (every thread once, as the wake-up of its first
 * message does) and drain it, as replicas' thread processors do: no claimer visits a thread in vain.
 */
function drainByWakeUps(count: number, drainThread: ClaimAndComplete): Promise<number> {
  let next = 0;
  return timedDrain(count, async (claimer) => {
    const mine: string[] = [];
    while (next < THREADS) mine.push(...(await drainThread(claimer, threadName(next++))));
    return mine;
  });
}

/** Everything one repetition measures on: a fresh database with each side's tables, connections per claimer. */
class Bench {
  /** Statements sent since the current measurement began. */
  private roundTrips = 0;
  /** Where a lost thread-run lease would be reported (it never is while the bench runs). */
  private readonly logger = defaultLogger();

  private constructor(
    readonly database: TestDatabase,
    private readonly admin: Pool,
    /** One connection per claimer, shared by its queue and lease store (as a replica's pool is). */
    private readonly pools: Pool[],
    private readonly queues: PostgreSQLMessageQueueStore[],
    private readonly leases: PostgreSQLLeaseStore[],
    private readonly clients: Client[],
    private readonly graphilePool: Pool,
  ) {}

  static async create(): Promise<Bench> {
    const database = await createTestDatabase("lattice_bench_b1");
    const admin = new Pool({ connectionString: database.url, max: 1 });
    const pools = Array.from({ length: CLAIMERS }, () => new Pool({ connectionString: database.url, max: 1, idleTimeoutMillis: 0 }));
    const queues = pools.map((pool) => new PostgreSQLMessageQueueStore({ pool }));
    const leases = pools.map((pool) => new PostgreSQLLeaseStore({ pool }));
    const clients = Array.from({ length: CLAIMERS }, () => new Client({ connectionString: database.url }));
    // graphile-worker's default pool size (maxPoolSize 10): it writes completions without waiting, so
    // it uses more connections than workers.
    const graphilePool = new Pool({ connectionString: database.url, max: GRAPHILE_POOL_SIZE, idleTimeoutMillis: 0 });
    // graphile-worker asks for error handlers on its pool and its clients; a lost connection fails the run anyway.
    graphilePool.on("error", () => {});
    graphilePool.on("connect", (client) => client.on("error", () => {}));
    const bench = new Bench(database, admin, pools, queues, leases, clients, graphilePool);
    for (const pool of [...pools, graphilePool]) pool.on("acquire", () => (bench.roundTrips += 1));
    try {
      for (const store of [...queues, ...leases]) await store.initialize();
      await admin.query(BARE_TABLE);
      await Promise.all(clients.map((client) => client.connect()));
      await runMigrations({ pgPool: graphilePool, logger: silent });
    } catch (error) {
      await bench.dispose();
      throw error;
    }
    return bench;
  }

  /**
   * Fills the side's queue with `count` messages and drains it: messages/s, and statements sent per
   * message (connections taken from the pools, one per statement; the bare loop counts its own).
   */
  async measure(side: Side, count: number): Promise<{ rate: number; roundTrips: number }> {
    const bare = side === "bare";
    const graphile = side === "graphile" || side === "graphileQueues";
    if (graphile) await this.graphileFill(count, side === "graphileQueues");
    else {
      await this.admin.query(bare ? "TRUNCATE bench_bare_queue" : "TRUNCATE lattice_thread_message_queue");
      await this.admin.query(bare ? FILL_BARE : FILL_STORE, [count]);
      await this.admin.query(bare ? "VACUUM ANALYZE bench_bare_queue" : "VACUUM ANALYZE lattice_thread_message_queue");
    }
    this.roundTrips = 0;
    const rate = graphile
      ? await this.graphileDrain(count)
      : side === "storeUnderLease"
        ? await drainByWakeUps(count, this.underLeaseTenure)
        : await drainByWalking(count, bare ? this.bareStep : this.storeStep);
    return { rate, roundTrips: this.roundTrips / count };
  }

  private readonly storeStep: ClaimAndComplete = async (claimer, threadId) => {
    const owner = `bench-${claimer}#${claimer}`;
    return this.claimAndCompleteAll(claimer, threadId, { owner, leaseMs: LEASE_MS, limit: BATCH });
  };

  /**
   * Claims the thread's first messages, then completes each claim and claims the next in one
   * statement, as the runtime's thread processor does, until a claim finds none.
   */
  private async claimAndCompleteAll(claimer: number, threadId: string, claim: ClaimMessagesOptions): Promise<string[]> {
    const queue = this.queues[claimer];
    const thread = { tenantId: TENANT, assistantId: ASSISTANT, threadId };
    const done: string[] = [];
    let [message] = await queue.claimPendingMessages(thread, claim);
    while (message) {
      const next = await queue.completeAndClaimNext(thread, message.id, { status: "success" }, claim);
      if (!next.completed || next.claimed === null) throw new Error(`B1: lost claim ${message.id}`);
      done.push(message.id);
      [message] = next.claimed;
    }
    return done;
  }

  /**
   * The agent runtime's statements for one tenure of a thread (ThreadProcessor.processWithSlot): take
   * the thread-run lease or move on, take back stale claims, claim, complete-and-claim until the thread
   * is empty (every claim under the tenure's fence), release, look for messages queued meanwhile.
   */
  private readonly underLeaseTenure: ClaimAndComplete = async (claimer, threadId) => {
    const scope = { tenantId: TENANT, assistantId: ASSISTANT, threadId };
    const queueScope = { tenantId: TENANT, assistantId: ASSISTANT };
    const queue = this.queues[claimer];
    const lease = await tryAcquireThreadRun(scope, { store: this.leases[claimer], ttlMs: LEASE_MS, replicaId: `bench-${claimer}`, logger: this.logger });
    if (!lease) throw new Error(`B1: the thread-run lease of ${threadId} was held`);
    let done: string[];
    try {
      await queue.resetProcessingToPending({ ...queueScope, threadId }, { fence: lease.fence });
      done = await this.claimAndCompleteAll(claimer, threadId, { owner: lease.holder, leaseMs: LEASE_MS, limit: BATCH, fence: lease.fence });
    } finally {
      await lease.release();
    }
    await queue.getPendingMessages({ ...queueScope, threadId });
    return done;
  };

  private readonly bareStep: ClaimAndComplete = async (claimer, threadId) => {
    const client = this.clients[claimer];
    const done: string[] = [];
    let { rows } = await client.query<{ id: string }>(BARE_CLAIM, [threadId, BATCH]);
    this.roundTrips += 1;
    while (rows.length > 0) {
      const ids = rows.map((row) => row.id);
      done.push(...ids);
      ({ rows } = await client.query<{ id: string }>(BARE_DELETE_AND_CLAIM, [threadId, BATCH, ids]));
      this.roundTrips += 1;
    }
    return done;
  };

  /**
   * graphile-worker's `runOnce` (it works until no job is left), `concurrency: CLAIMERS`, on a warm pool
   * of its default size: from its worker pool's start until every job's completion is written back.
   * Its workers write a completion without waiting for it (`job:complete` fires before, and `runOnce`
   * can return before, the last is committed), so the end is when the jobs table is seen empty.
   */
  private async graphileFill(count: number, namedQueues: boolean): Promise<void> {
    await this.admin.query("TRUNCATE graphile_worker._private_jobs, graphile_worker._private_job_queues CASCADE");
    await this.admin.query(FILL_GRAPHILE, [count, namedQueues]);
    await this.admin.query("VACUUM ANALYZE graphile_worker._private_jobs");
  }

  private async graphileDrain(count: number): Promise<number> {
    const events: WorkerEvents = new EventEmitter();
    let startedAt = 0;
    let succeeded = 0;
    events.on("pool:create", () => (startedAt = performance.now()));
    events.on("job:success", () => (succeeded += 1));
    await runOnce({ pgPool: this.graphilePool, concurrency: CLAIMERS, noHandleSignals: true, logger: silent, events, taskList: { noop: async () => {} } });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await this.admin.query<{ left: number }>(GRAPHILE_LEFT);
      if (rows[0].left === 0) break;
      if (Date.now() > deadline) throw new Error(`B1: graphile-worker left ${rows[0].left} of ${count} jobs`);
    }
    const elapsedMs = performance.now() - startedAt;
    if (succeeded !== count) throw new Error(`B1: graphile-worker ran ${succeeded} jobs for ${count} queued`);
    return (count * 1_000) / elapsedMs;
  }

  async dispose(): Promise<void> {
    await Promise.allSettled([...this.pools, this.graphilePool, this.admin].map((pool) => pool.end()));
    await Promise.allSettled(this.clients.map((client) => client.end()));
    await this.database.drop();
  }
}

const silent = new Logger(() => () => {});

export const b1Queue: Figure = {
  id: "B1",
  title: `queue claim+complete msg/s, ${CLAIMERS} claimers, ${THREADS} threads, ${MESSAGES} messages, batch ${BATCH}, under the thread-run lease (per-thread order); ok needs unordered ≥ ${TARGET_VS_GRAPHILE_PLAIN} of graphile-worker plain and ≥ ${TARGET_VS_BARE} of a bare SKIP LOCKED loop too`,
  async run() {
    const runs: Record<Side, number[]> = { store: [], storeUnderLease: [], bare: [], graphile: [], graphileQueues: [] };
    const roundTrips: Record<Side, number[]> = { store: [], storeUnderLease: [], bare: [], graphile: [], graphileQueues: [] };
    for (let rep = 0; rep < REPETITIONS; rep += 1) {
      const bench = await Bench.create();
      try {
        const order = SIDES.map((_, i) => SIDES[(i + rep) % SIDES.length]);
        for (const side of order) await bench.measure(side, WARM_UP_MESSAGES);
        for (const side of order) {
          const { rate, roundTrips: perMessage } = await bench.measure(side, MESSAGES);
          runs[side].push(rate);
          roundTrips[side].push(perMessage);
        }
      } finally {
        await bench.dispose();
      }
    }
    const medians = Object.fromEntries(SIDES.map((side) => [side, median(runs[side])])) as Record<Side, number>;
    const vsGraphile = medians.storeUnderLease / medians.graphileQueues;
    const vsGraphilePlain = medians.store / medians.graphile;
    const vsBare = medians.store / medians.bare;
    const round = (n: number) => Math.round(n);
    const trips = Object.fromEntries(SIDES.map((side) => [side, median(roundTrips[side])])) as Record<Side, number>;
    const spread = (side: Side) => `${round(Math.min(...runs[side]))}–${round(Math.max(...runs[side]))}`;
    const pass = (ratio: number, target: number) => `${ratio.toFixed(2)} ${ratio >= target ? "pass" : "FAIL"} (target ≥ ${target})`;
    return {
      unit: "msg/s",
      value: medians.storeUnderLease,
      baseline: medians.graphileQueues,
      baselineName: "graphile-worker 0.17.3, queue_name per thread, same run",
      ratio: vsGraphile,
      better: "higher",
      target: TARGET_VS_GRAPHILE,
      ok: vsGraphile >= TARGET_VS_GRAPHILE && vsGraphilePlain >= TARGET_VS_GRAPHILE_PLAIN && vsBare >= TARGET_VS_BARE,
      raw: { claimers: CLAIMERS, threads: THREADS, messages: MESSAGES, batch: BATCH, repetitions: REPETITIONS, runs, medians, roundTripsPerMessage: trips, duplicates: 0 },
      details: [
        `serialised per thread: store under the thread-run lease ${round(medians.storeUnderLease)} msg/s (${spread("storeUnderLease")}), graphile-worker queue_name ${round(medians.graphileQueues)} (${spread("graphileQueues")}): ${pass(vsGraphile, TARGET_VS_GRAPHILE)}`,
        `unordered: store complete-and-claim ${round(medians.store)} msg/s (${spread("store")}), graphile-worker plain ${round(medians.graphile)} (${spread("graphile")}): ${pass(vsGraphilePlain, TARGET_VS_GRAPHILE_PLAIN)}`,
        `store complete-and-claim / bare SKIP LOCKED loop ${round(medians.bare)} msg/s (${spread("bare")}): ${pass(vsBare, TARGET_VS_BARE)}`,
        `statements per message (awaited one after another, except graphile-worker's completions): store ${trips.store.toFixed(2)}, under the lease ${trips.storeUnderLease.toFixed(2)}, bare ${trips.bare.toFixed(2)}, graphile-worker plain ${trips.graphile.toFixed(2)}, queue_name ${trips.graphileQueues.toFixed(2)}`,
        `medians (min–max) of ${REPETITIONS} repetitions, each on a fresh database, sides in rotating order; ok needs all three targets`,
      ],
    };
  },
};
