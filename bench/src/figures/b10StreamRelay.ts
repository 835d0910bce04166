// B10 (issue 23): the stream relay. Two gateway replicas on one PostgreSQL database; runs start on
// replica A (the owner, which serves its stream from memory) and replica B follows each one through
// the run event log (`resume_stream`, woken by NOTIFY). The bench reads both streams of every run at
// once, on one clock: per event id, the relay's lag is B's receive time − A's. The model streams a
// token every TOKEN_INTERVAL_MS from a process of its own (b10PacedModelApi), as a real one does over
// a few seconds. Target (issue 23): follower lag p99 ≤ 2 × a bare LISTEN/NOTIFY round trip's p99
// (measured in the same run) + the batching interval. Also reported: time to first event on both
// replicas, and the database writes a streamed run costs.
import { RUN_EVENT_FLUSH_MS } from "@axiom-lattice/agent";
import { MessageChunkTypes } from "@axiom-lattice/protocols";
// The database helper alone: the package root also holds vitest suites, which a plain script cannot load.
import { createTestDatabase } from "@axiom-lattice/testing/database";
import { sseFrames } from "@axiom-lattice/testing/sse";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "pg";
import { type Figure, median, percentile } from "../figure";
import { GatewayApi } from "../gatewayApi";
import { startGateway } from "../gatewayProcess";
import { ServerProcess } from "../serverProcess";
import { bareRoundTrips } from "./b2Outbox";

const TOKENS = 100;
const TOKEN_INTERVAL_MS = 25;
/** Runs streaming at once, each on a thread of its own. */
const RUNS_AT_ONCE = 4;
const ROUNDS_PER_REPETITION = 3;
const REPETITIONS = 3;
/** 400 round trips a repetition: a p99 that is not just the largest few. */
const BARE_RATE = 100;
const BARE_PHASE_MS = 4_000;
/** A backend reports its counters to pg_stat_database at most once a second, and when idle: wait for them. */
const STATS_SETTLE_MS = 1_500;
/** How long the replicas are watched idle, for their background writes (leases, presence) to take out of the runs'. */
const IDLE_WINDOW_MS = 3_000;
const TARGET_RATIO = 1;
const ASSISTANT = "bench-b10";
const OWNER_ID = "b10-a";

const ENDED_UNSUCCESSFULLY: string[] = [MessageChunkTypes.MESSAGE_FAILED, MessageChunkTypes.ERROR, MessageChunkTypes.INTERRUPT, MessageChunkTypes.AFFINITY_MISS];

interface Arrival {
  id: string;
  at: number;
}

interface StreamedRun {
  messageId: string;
  requestedAt: number;
  owner: Arrival[];
  follower: Arrival[];
}

async function post(url: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** A run's events as they arrive, each timed when read, up to `message_completed`. */
async function readStream(response: Response, label: string): Promise<Arrival[]> {
  if (response.status !== 200) throw new Error(`B10: ${label} answered ${response.status}: ${await response.text()}`);
  const arrivals: Arrival[] = [];
  for await (const frame of sseFrames(response.body)) {
    if (frame.data === undefined) continue;
    const at = performance.now();
    const { type } = JSON.parse(frame.data) as { type: string };
    if (frame.id === undefined) throw new Error(`B10: ${label} sent an event without an id: ${frame.data}`);
    arrivals.push({ id: frame.id, at });
    if (type === MessageChunkTypes.MESSAGE_COMPLETED) return arrivals;
    if (ENDED_UNSUCCESSFULLY.includes(type)) throw new Error(`B10: ${label} ended with ${frame.data}`);
  }
  throw new Error(`B10: ${label} ended before message_completed`);
}

/**
 * Starts a run on A and follows it on A (its `mode: "stream"` answer) and on B (`resume_stream` from
 * the start), both read from the moment they answer. B is asked once A answered: the message is queued.
 */
async function streamOnBoth(a: string, b: string, threadId: string): Promise<StreamedRun> {
  const messageId = `${threadId}-message`;
  const thread = { assistant_id: ASSISTANT, thread_id: threadId };
  const requestedAt = performance.now();
  const owner = readStream(await post(a, "/api/runs", { ...thread, message: "B10", message_id: messageId, mode: "stream" }), `the stream of ${messageId} on A`);
  const follower = post(b, "/api/runs/resume_stream", { ...thread, message_id: messageId }).then((response) => readStream(response, `resume_stream of ${messageId} on B`));
  const [ownerArrivals, followerArrivals] = await Promise.all([owner, follower]);
  return { messageId, requestedAt, owner: ownerArrivals, follower: followerArrivals };
}

/** Whether B received exactly A's events, in A's order, under A's ids. */
const sameEvents = (run: StreamedRun) => run.owner.length === run.follower.length && run.follower.every((arrival, i) => arrival.id === run.owner[i].id);

/** Per event id: B's receive time − A's. */
function lagsOf(run: StreamedRun): number[] {
  const ownerAt = new Map(run.owner.map((arrival) => [arrival.id, arrival.at]));
  return run.follower.map((arrival) => arrival.at - ownerAt.get(arrival.id)!);
}

interface RowsWritten {
  at: number;
  rows: number;
}

/** Rows the database's backends inserted, updated and deleted so far, once every backend reported them. */
async function rowsWritten(client: Client): Promise<RowsWritten> {
  await sleep(STATS_SETTLE_MS);
  const { rows } = await client.query<{ rows: string }>(
    "SELECT tup_inserted + tup_updated + tup_deleted AS rows FROM pg_stat_database WHERE datname = current_database()",
  );
  return { at: performance.now(), rows: Number(rows[0].rows) };
}

/**
 * The run event log's appends per run: each is one `INSERT … pg_notify` statement in a transaction of
 * its own, so its rows share one `logged_at` (now(), the transaction's start) and no other append's.
 */
async function logAppends(client: Client, messageIds: string[]): Promise<Map<string, { appends: number; rows: number }>> {
  const { rows } = await client.query<{ message_id: string; appends: number; rows: number }>(
    `SELECT message_id, count(DISTINCT logged_at)::int AS appends, count(*)::int AS rows
       FROM lattice_run_events WHERE message_id = ANY($1) GROUP BY message_id`,
    [messageIds],
  );
  return new Map(rows.map((row) => [row.message_id, { appends: row.appends, rows: row.rows }]));
}

/** The messages of `messageIds` that a replica other than A ran (B won the thread's lease): left out of the figures. */
async function ranElsewhere(client: Client, messageIds: string[]): Promise<Set<string>> {
  const { rows } = await client.query<{ id: string; replica_id: string | null }>("SELECT id, replica_id FROM lattice_thread_message_queue WHERE id = ANY($1)", [messageIds]);
  if (rows.length !== messageIds.length) throw new Error(`B10: ${messageIds.length - rows.length} of the runs' messages are not in the queue table`);
  return new Set(rows.filter((row) => row.replica_id !== OWNER_ID).map((row) => row.id));
}

const summarise = (values: number[]) => ({ p50: percentile(values, 50), p99: percentile(values, 99), max: Math.max(...values), samples: values.length });

interface Repetition {
  runs: number;
  runsOnB: number;
  mismatchedRuns: number;
  ownerFirstEventMs: ReturnType<typeof summarise>;
  followerFirstEventMs: ReturnType<typeof summarise>;
  lagMs: ReturnType<typeof summarise>;
  bareNotifyMs: ReturnType<typeof summarise>;
  logAppendsPerRun: number;
  logRowsPerRun: number;
  logAppendsPerStreamingSecond: number;
  /** pg_stat_database over the rounds, the replicas' idle background taken out. */
  databaseRowsWrittenPerRun: number;
}

interface Setting {
  a: string;
  b: string;
  databaseUrl: string;
  client: Client;
  /** Rows written a second by the replicas when idle (leases, presence). */
  backgroundRowsPerSecond: number;
}

/** A bare LISTEN/NOTIFY phase, then `rounds` of runs streamed on both replicas (one round's runs at once). */
async function repetition({ a, b, databaseUrl, client, backgroundRowsPerSecond }: Setting, rounds: string[][]): Promise<Repetition> {
  const bareNotifyMs = summarise(await bareRoundTrips(databaseUrl, BARE_RATE, BARE_PHASE_MS));
  const before = await rowsWritten(client);
  const streamed: StreamedRun[] = [];
  for (const round of rounds) streamed.push(...(await Promise.all(round.map((threadId) => streamOnBoth(a, b, threadId)))));
  const after = await rowsWritten(client);

  const elsewhere = await ranElsewhere(client, streamed.map((run) => run.messageId));
  const runs = streamed.filter((run) => !elsewhere.has(run.messageId));
  if (runs.length === 0) throw new Error("B10: replica B ran every message of a repetition; nothing was relayed");
  const log = await logAppends(client, runs.map((run) => run.messageId));
  const appends = runs.map((run) => log.get(run.messageId)?.appends ?? 0);
  const streamingSeconds = runs.reduce((sum, run) => sum + (run.owner.at(-1)!.at - run.owner[0].at) / 1_000, 0);
  const windowSeconds = (after.at - before.at) / 1_000;
  return {
    runs: runs.length,
    runsOnB: elsewhere.size,
    mismatchedRuns: streamed.filter((run) => !sameEvents(run)).length,
    ownerFirstEventMs: summarise(runs.map((run) => run.owner[0].at - run.requestedAt)),
    followerFirstEventMs: summarise(runs.map((run) => run.follower[0].at - run.requestedAt)),
    lagMs: summarise(runs.flatMap(lagsOf)),
    bareNotifyMs,
    logAppendsPerRun: median(appends),
    logRowsPerRun: median(runs.map((run) => log.get(run.messageId)?.rows ?? 0)),
    logAppendsPerStreamingSecond: appends.reduce((sum, n) => sum + n, 0) / streamingSeconds,
    databaseRowsWrittenPerRun: (after.rows - before.rows - backgroundRowsPerSecond * windowSeconds) / streamed.length,
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export const b10StreamRelay: Figure = {
  id: "B10",
  title: `stream relay, follower lag p99: B's receive − A's per event, runs on A followed on B (ms; ratio = p99 / (2 × bare LISTEN/NOTIFY p99 + ${RUN_EVENT_FLUSH_MS} ms batching))`,
  async run() {
    const database = await createTestDatabase("lattice_bench_b10");
    const processes: ServerProcess[] = [];
    const client = new Client({ connectionString: database.url });
    try {
      const model = await ServerProcess.start({
        name: "B10 model API",
        nodeArgs: [...process.execArgv, join(__dirname, "b10PacedModelApi.ts")],
        env: { B10_TOKENS: String(TOKENS), B10_TOKEN_INTERVAL_MS: String(TOKEN_INTERVAL_MS) },
      });
      processes.push(model);
      const a = await startGateway({ name: "B10 replica A", databaseUrl: database.url, replicaId: OWNER_ID });
      processes.push(a);
      const b = await startGateway({ name: "B10 replica B", databaseUrl: database.url, replicaId: "b10-b" });
      processes.push(b);
      await client.connect();

      const api = new GatewayApi(a.url);
      await api.createAssistant(ASSISTANT, { provider: "openai", base_url: model.url, model: "b10-paced", api_key: "sk-b10" });
      // A thread per run: no conversation grows from one round to the next.
      const threadIds = await api.createThreads(ASSISTANT, "b10", (1 + REPETITIONS * ROUNDS_PER_REPETITION) * RUNS_AT_ONCE);
      const rounds = Array.from({ length: threadIds.length / RUNS_AT_ONCE }, (_, i) => threadIds.slice(i * RUNS_AT_ONCE, (i + 1) * RUNS_AT_ONCE));
      // Warm both replicas and both paths (JIT, pools, plans), and the bare round trip's connections.
      await Promise.all(rounds[0].map((threadId) => streamOnBoth(a.url, b.url, threadId)));
      await bareRoundTrips(database.url, BARE_RATE, 500);

      const idleFrom = await rowsWritten(client);
      await sleep(IDLE_WINDOW_MS);
      const idleTo = await rowsWritten(client);
      const backgroundRowsPerSecond = ((idleTo.rows - idleFrom.rows) * 1_000) / (idleTo.at - idleFrom.at);
      const setting: Setting = { a: a.url, b: b.url, databaseUrl: database.url, client, backgroundRowsPerSecond };

      const repetitions: Repetition[] = [];
      for (let rep = 0; rep < REPETITIONS; rep += 1) {
        const own = rounds.slice(1 + rep * ROUNDS_PER_REPETITION, 1 + (rep + 1) * ROUNDS_PER_REPETITION);
        repetitions.push(await repetition(setting, own));
      }

      const of = (pick: (r: Repetition) => number) => median(repetitions.map(pick));
      const lagP50 = of((r) => r.lagMs.p50);
      const lagP99 = of((r) => r.lagMs.p99);
      const bareP99 = of((r) => r.bareNotifyMs.p99);
      const targetLine = 2 * bareP99 + RUN_EVENT_FLUSH_MS;
      const ratio = lagP99 / targetLine;
      const ownerFirstEvent = { p50: of((r) => r.ownerFirstEventMs.p50), p99: of((r) => r.ownerFirstEventMs.p99) };
      const followerFirstEvent = { p50: of((r) => r.followerFirstEventMs.p50), p99: of((r) => r.followerFirstEventMs.p99) };
      const appendsPerRun = of((r) => r.logAppendsPerRun);
      const appendsPerSecond = of((r) => r.logAppendsPerStreamingSecond);
      const faithful = repetitions.every((r) => r.mismatchedRuns === 0);
      const events = repetitions.reduce((sum, r) => sum + r.lagMs.samples, 0);
      const runs = repetitions.reduce((sum, r) => sum + r.runs, 0);
      return {
        unit: "ms",
        value: lagP99,
        baseline: targetLine,
        baselineName: `2 × bare LISTEN/NOTIFY p99 + ${RUN_EVENT_FLUSH_MS} ms batching, same run`,
        ratio,
        better: "lower",
        target: TARGET_RATIO,
        ok: ratio <= TARGET_RATIO && faithful,
        details: [
          `time to first event (run requested on A → first event) p50 / p99: owner A ${round1(ownerFirstEvent.p50)} / ${round1(ownerFirstEvent.p99)} ms, ` +
            `follower B ${round1(followerFirstEvent.p50)} / ${round1(followerFirstEvent.p99)} ms (p99 of ${RUNS_AT_ONCE * ROUNDS_PER_REPETITION} runs: their slowest)`,
          `follower lag (B − A, per event id) p50 ${round1(lagP50)} ms, p99 ${round1(lagP99)} ms over ${events} events of ${runs} runs; B received exactly A's events: ${faithful ? "yes" : "NO"}`,
          `target: p99 ${round1(lagP99)} ≤ 2 × bare NOTIFY p99 ${round1(bareP99)} + batching ${RUN_EVENT_FLUSH_MS} = ${round1(targetLine)} ms: ratio ${ratio.toFixed(3)} ${ratio <= TARGET_RATIO ? "pass" : "FAIL"}`,
          `database writes per streamed run: ${appendsPerRun} appends to the run event log (one INSERT … pg_notify each; ${round1(appendsPerSecond)} per second of streaming) ` +
            `holding ${of((r) => r.logRowsPerRun)} rows, of ${round1(of((r) => r.databaseRowsWrittenPerRun))} rows the run wrote in the whole database (pg_stat_database)`,
          `medians of ${REPETITIONS} repetitions`,
        ],
        raw: {
          note:
            `${REPETITIONS} repetitions of ${ROUNDS_PER_REPETITION} rounds of ${RUNS_AT_ONCE} runs at once (after a warm-up round), each run on a thread of its own, ` +
            `${TOKENS} tokens ${TOKEN_INTERVAL_MS} ms apart from a model API process. Time to first event: from POST /api/runs sent to A. ` +
            "Log appends: distinct logged_at of the run's rows in lattice_run_events (exact: one statement per append; pg_stat_statements is not loaded on a stock server). " +
            "Rows in the whole database: pg_stat_database's inserted + updated + deleted over the rounds, less the two idle replicas' background rate.",
          batchingIntervalMs: RUN_EVENT_FLUSH_MS,
          targetLineMs: targetLine,
          backgroundRowsPerSecond,
          repetitions,
        },
      };
    } finally {
      await client.end().catch(() => undefined);
      await Promise.all(processes.map((server) => server.stop()));
      await database.drop();
    }
  },
};
