// B4 (performance.md, redefined by issue 42): HTTP enqueue — `POST /api/runs` with `mode: "queue"`,
// requests/s answered 202 by an `AXIOM_ROLE=api` replica on PostgreSQL (a real process started from
// the CLI, as B12 starts one), under autocannon with 20 connections, against a bare Fastify route in a
// process of its own doing the same `INSERT` into the same queue table with pg, on a pool of the same
// size. Target ≥ 0.5 (issue 42).
//
// An api replica runs no message (its workers would), so the figure is the enqueue path alone: what
// the gateway does per request beyond the bare insert (validation, the read of its thread and
// assistant, the per-thread capacity check under its lock, the notice to workers). The replica's own
// statements are counted by kind (`pgStatementCounter.ts`) and printed per request. Both sides share
// one database; the queue table is emptied before every load, so neither meets the other's rows.
// Repetitions alternate the two sides, so both meet the same load from the rest of the machine.
import { type TestDatabase, createTestDatabase } from "@axiom-lattice/testing/database";
import { join } from "node:path";
import { Pool } from "pg";
import { type Figure, median } from "../figure";
import { GatewayApi } from "../gatewayApi";
import { startGateway } from "../gatewayProcess";
import { type LoadResult, postLoad } from "../httpLoad";
import { PG_COUNTER_FLAGS, type PgCounts, pgCountsBetween, readPgCounts } from "../pgStatementCounter";
import { ServerProcess } from "../serverProcess";

const CONNECTIONS = 20;
const REPETITIONS = 3;
// performance.md asks for 10 s; 5 s keeps a full `pnpm bench` reasonable (BENCH_SECONDS=10 for the design's length).
export const SECONDS = secondsFromEnv(process.env.BENCH_SECONDS, 5);
const WARM_UP_SECONDS = 3;
// Fresh threads for each gateway load, so every repetition starts from short queues; spread so that
// no thread nears its queue capacity (1,000) at a few thousand requests/s.
const THREADS = 200;
const DRAIN_TIMEOUT_MS = 10 * 60_000;
// The gateway's default (`DATABASE_POOL_MAX`), set on both sides.
const POOL_SIZE = 10;
const TARGET = 0.5;
export const ASSISTANT = "bench-b4";

function secondsFromEnv(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === "") return fallback;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`BENCH_SECONDS must be a positive number of seconds, not "${raw}"`);
  return seconds;
}

export interface GatewayRepetition extends LoadResult {
  /** Messages still queued when the load stopped: the rest were run during the load. */
  queuedWhenLoadEnded: number;
  /** How long the replicas then took to run the backlog. */
  drainMs: number;
  /** Queued messages run per second, from the load's start to the queue's end. */
  processedPerSecond: number;
}

const messageBody = (threadIds: string[]) => {
  let next = 0;
  return () => JSON.stringify({ assistant_id: ASSISTANT, thread_id: threadIds[next++ % threadIds.length], message: "hello from B4", mode: "queue" });
};

/** One enqueue load on the gateway, on threads of {@link ASSISTANT}. */
async function enqueueLoad(api: GatewayApi, threadIds: string[], seconds: number): Promise<LoadResult> {
  const load = await postLoad({ url: api.url, path: "/api/runs", body: messageBody(threadIds), connections: CONNECTIONS, seconds });
  if (load.non2xx || load.errors) throw new Error(`B4: the gateway answered ${load.non2xx} non-2xx and ${load.errors} errors`);
  return load;
}

/** One enqueue load on the gateway, on {@link THREADS} fresh threads, then the wait until its replicas ran all it accepted (B12). */
export async function loadGateway(api: GatewayApi, label: string, seconds: number): Promise<GatewayRepetition> {
  const threadIds = await api.createThreads(ASSISTANT, label, THREADS);
  const load = await enqueueLoad(api, threadIds, seconds);
  const queuedWhenLoadEnded = (await api.queueSizes(threadIds)).reduce((sum, size) => sum + size, 0);
  const drainMs = await api.waitUntilDrained(threadIds, DRAIN_TIMEOUT_MS);
  const processedPerSecond = load.answered2xx / (load.seconds + drainMs / 1_000);
  return { ...load, queuedWhenLoadEnded, drainMs, processedPerSecond };
}

/**
 * What the api replica sent per request over the loads (background work during them included), in
 * statements and in transactions by kind, most frequent first.
 */
function perRequest(loads: PgCounts[], requests: number): { statements: number; transactions: number; kinds: Array<[string, number]> } {
  const byKind = new Map<string, number>();
  for (const { transactions } of loads) for (const [kind, count] of Object.entries(transactions)) byKind.set(kind, (byKind.get(kind) ?? 0) + count);
  const kinds = [...byKind].map(([kind, count]): [string, number] => [kind, count / requests]).sort((a, b) => b[1] - a[1]);
  const statements = loads.reduce((sum, load) => sum + load.statements, 0);
  return { statements: statements / requests, transactions: kinds.reduce((sum, [, count]) => sum + count, 0), kinds };
}

export const b4HttpEnqueue: Figure = {
  id: "B4",
  title: `HTTP enqueue (POST /api/runs mode=queue) req/s, 1 AXIOM_ROLE=api replica on PostgreSQL, ${CONNECTIONS} connections, pool ${POOL_SIZE}`,
  async run() {
    const processes: ServerProcess[] = [];
    let database: TestDatabase | undefined;
    let admin: Pool | undefined;
    try {
      database = await createTestDatabase("lattice_bench_b4");
      admin = new Pool({ connectionString: database.url, max: 1 });
      const settings = { DATABASE_POOL_MAX: String(POOL_SIZE) };
      const gateway = await startGateway({
        name: "B4 api",
        databaseUrl: database.url,
        replicaId: "b4-api",
        nodeFlags: PG_COUNTER_FLAGS,
        env: { AXIOM_ROLE: "api", ...settings },
      });
      processes.push(gateway);
      // Started once the replica migrated the database. With this process's flags, so the tsx loader
      // that runs the bench runs the baseline too.
      const baseline = await ServerProcess.start({
        name: "B4 baseline",
        nodeArgs: [...process.execArgv, join(__dirname, "b4BaselineServer.ts")],
        env: { DATABASE_URL: database.url, ...settings },
      });
      processes.push(baseline);
      const api = new GatewayApi(gateway.url);
      await api.createAssistant(ASSISTANT);
      const emptyQueue = () => admin!.query("TRUNCATE lattice_thread_message_queue");
      const loadBaseline = async (seconds: number) => {
        await emptyQueue();
        const load = await postLoad({ url: baseline.url, path: "/api/runs", body: messageBody(["baseline"]), connections: CONNECTIONS, seconds });
        if (load.non2xx || load.errors) throw new Error(`B4: the baseline answered ${load.non2xx} non-2xx and ${load.errors} errors`);
        return load;
      };
      const gatewayRuns: Array<LoadResult & { counts: PgCounts }> = [];
      const loadOnGateway = async (label: string, seconds: number) => {
        await emptyQueue();
        const threadIds = await api.createThreads(ASSISTANT, label, THREADS);
        const before = await readPgCounts(gateway);
        const load = await enqueueLoad(api, threadIds, seconds);
        return { ...load, counts: pgCountsBetween(before, await readPgCounts(gateway)) };
      };

      await loadOnGateway("warm-up", WARM_UP_SECONDS);
      await loadBaseline(WARM_UP_SECONDS);
      const baselineRuns: LoadResult[] = [];
      for (let rep = 0; rep < REPETITIONS; rep += 1) {
        // Alternate which side goes first, so neither always follows the other.
        if (rep % 2 === 1) baselineRuns.push(await loadBaseline(SECONDS));
        gatewayRuns.push(await loadOnGateway(`rep-${rep}`, SECONDS));
        if (rep % 2 === 0) baselineRuns.push(await loadBaseline(SECONDS));
      }

      const value = median(gatewayRuns.map((run) => run.requestsPerSecond));
      const baselineValue = median(baselineRuns.map((run) => run.requestsPerSecond));
      const ratio = value / baselineValue;
      const cost = perRequest(
        gatewayRuns.map((run) => run.counts),
        gatewayRuns.reduce((sum, run) => sum + run.answered2xx, 0),
      );
      const latency = (runs: LoadResult[]) => `p50 ${median(runs.map((run) => run.latencyMs.p50))} ms, p99 ${median(runs.map((run) => run.latencyMs.p99))} ms`;
      return {
        unit: "req/s",
        value,
        baseline: baselineValue,
        baselineName: `bare Fastify route, one pg INSERT per request, pool ${POOL_SIZE}, same run and database`,
        ratio,
        better: "higher",
        target: TARGET,
        ok: ratio >= TARGET,
        details: [
          `latency: api replica ${latency(gatewayRuns)}; bare route ${latency(baselineRuns)}`,
          `api replica per request: ${cost.statements.toFixed(2)} statements (BEGIN and COMMIT included) in ${cost.transactions.toFixed(2)} transactions; bare route: 1 statement in 1 transaction`,
          `api replica transactions per request by kind: ${cost.kinds
            .filter(([, count]) => count >= 0.01)
            .map(([kind, count]) => `${kind} ${count.toFixed(2)}`)
            .join(", ")}`,
          `medians of ${REPETITIONS} repetitions × ${SECONDS} s per side, sides alternating; the queue table emptied before each load`,
        ],
        raw: {
          connections: CONNECTIONS,
          poolSize: POOL_SIZE,
          repetitions: REPETITIONS,
          secondsPerRepetition: SECONDS,
          perRequest: cost,
          gatewayRuns,
          baselineRuns,
        },
      };
    } finally {
      await Promise.all(processes.map((server) => server.stop()));
      await admin?.end();
      await database?.drop();
    }
  },
};
