// B6 (performance.md, issue 26): scale-out. 1, 2 and 3 gateway replicas (real processes from the CLI)
// on one PostgreSQL database take the same load: a backlog of queued runs (`POST /api/runs`,
// `mode: "queue"`, scripted model) spread over many threads, sent round-robin to the replicas, timed
// from the first request until the last run has finished (read from the database). The figure is the
// runs/s of 2 replicas over 1 (and 3 over 1 below it), target ≥ 1.5 with 2.
//
// Beside each throughput, where the time went: CPU time of each replica, of the database's server
// processes for this database and of this process (the load generator), and the machine's; sampled
// pg_stat_activity (each replica's pool connections, found by its application_name, how many run a
// statement, how many wait for a lock). On a machine with 2 cores the replicas, PostgreSQL and the
// load generator share the cores, so a figure short of target there says what bounds it rather than
// that replicas do not add throughput. The load generator is not pinned (taskset): it needs a few
// hundredths of a core, and a core kept for it would be one fewer for the replicas.
// The database helper alone: the package root also holds vitest suites, which a plain script cannot load.
import { createTestDatabase } from "@axiom-lattice/testing/database";
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { Client } from "pg";
import { type Figure, median } from "../figure";
import { waitForFinishedRuns } from "../finishedRuns";
import { GatewayApi } from "../gatewayApi";
import { startGateway } from "../gatewayProcess";
import { postLoad } from "../httpLoad";
import { type ActivitySummary, PgActivitySampler } from "../pgActivity";
import { machineCpuSeconds, processCpuSeconds } from "../processCpu";
import type { ServerProcess } from "../serverProcess";

const REPLICA_COUNTS = [1, 2, 3] as const;
const REPETITIONS = Number(process.env.B6_REPETITIONS ?? 3);
const RUNS = Number(process.env.B6_RUNS ?? 480);
// 2–3 runs per thread: enough threads that every replica's run slots always find one to run.
const THREADS = 200;
// Divisible by every replica count: each replica gets the same share of the load generator's connections.
const CONNECTIONS = 12;
// Each replica is warmed (JIT, pools, prepared statements) by this many runs before the measurement.
const WARM_UP_RUNS_PER_REPLICA = 30;
const DRAIN_TIMEOUT_MS = 10 * 60_000;
const TARGET = 1.5;
const ASSISTANT = "bench-b6";
const applicationName = (replica: number) => `b6-replica-${replica + 1}`;

interface ReplicaSide {
  /** Runs this replica ran (the queue's replica_id), of the measured ones. */
  runs: number;
  /** Cores it kept busy on average over the measurement (CPU seconds / wall seconds). */
  cores: number;
  /** Its pool's connections and those running a statement, mean over the samples (its application_name). */
  connections: number;
  maxConnections: number;
  activeConnections: number;
  /** Connections in a transaction waiting for the replica's next statement (its event loop is busy). */
  idleInTransaction: number;
}

interface Measurement {
  replicas: number;
  runsPerSecond: number;
  enqueuePerSecond: number;
  seconds: number;
  perReplica: ReplicaSide[];
  /** Cores kept busy by the database's server processes (backends of this database), this process, the whole machine. */
  databaseCores: number;
  loadGeneratorCores: number;
  machineBusyCores: number;
  /** Transactions committed in the database per measured run (pg_stat_database; the replicas' background work included). */
  commitsPerRun: number;
  lockWaits: ActivitySummary["lockWaits"];
  waits: ActivitySummary["waits"];
  loadAverage: number;
}

/** Queues `runs` runs spread over `threadIds`, round-robin over the replicas, CONNECTIONS in all. */
async function enqueue(gateways: ServerProcess[], threadIds: string[], runs: number, label: string): Promise<number> {
  let next = 0;
  const body = () => JSON.stringify({ assistant_id: ASSISTANT, thread_id: threadIds[next++ % threadIds.length], message: `B6 ${label} ${next}`, mode: "queue" });
  const results = await Promise.all(
    gateways.map((gateway) => postLoad({ url: gateway.url, path: "/api/runs", body, connections: CONNECTIONS / gateways.length, amount: runs / gateways.length })),
  );
  const accepted = results.reduce((sum, result) => sum + result.answered2xx, 0);
  if (accepted !== runs) throw new Error(`B6: ${accepted} of ${runs} runs were queued: ${JSON.stringify(results.map(({ non2xx, errors }) => ({ non2xx, errors })))}`);
  return accepted;
}

async function runsPerReplica(databaseUrl: string, replicaIds: string[], since: number): Promise<number[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ replica_id: string; count: number }>(
      "SELECT replica_id, count(*)::int AS count FROM lattice_thread_message_queue WHERE status = 'completed' AND sequence > $1 GROUP BY replica_id",
      [since],
    );
    return replicaIds.map((id) => rows.find((row) => row.replica_id === id)?.count ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * Transactions committed in the database so far. Backends report their counts at most once a second
 * (and when idle), so a reading may miss the last second's: the figure is approximate.
 */
async function commits(databaseUrl: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ commits: string }>("SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = current_database()");
    return Number(rows[0].commits);
  } finally {
    await client.end();
  }
}

async function lastSequence(databaseUrl: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ last: string | null }>("SELECT max(sequence) AS last FROM lattice_thread_message_queue");
    return Number(rows[0].last ?? 0);
  } finally {
    await client.end();
  }
}

/** One measurement: `replicas` fresh gateway processes on a fresh database, warmed, then the backlog. */
async function measure(replicas: number): Promise<Measurement> {
  const database = await createTestDatabase("lattice_bench_b6");
  const gateways: ServerProcess[] = [];
  try {
    const replicaIds = Array.from({ length: replicas }, (_, i) => `b6-${i + 1}`);
    for (const [i, replicaId] of replicaIds.entries()) {
      // The URL's application_name names all of the replica's connections in pg_stat_activity (it wins
      // over the names the gateway gives its pool and listeners).
      const url = new URL(database.url);
      url.searchParams.set("application_name", applicationName(i));
      gateways.push(await startGateway({ name: `B6 replica ${i + 1}`, databaseUrl: url.toString(), replicaId }));
    }
    const api = new GatewayApi(gateways[0].url);
    await api.createAssistant(ASSISTANT);
    const threadIds = await api.createThreads(ASSISTANT, "b6", THREADS);
    const warmUpRuns = WARM_UP_RUNS_PER_REPLICA * replicas;
    await enqueue(gateways, threadIds, warmUpRuns, "warm-up");
    await waitForFinishedRuns(database.url, warmUpRuns, DRAIN_TIMEOUT_MS);
    const since = await lastSequence(database.url);

    const sampler = await PgActivitySampler.start(database.url);
    const cpuOf = () => ({
      gateways: gateways.map((gateway) => processCpuSeconds(gateway.pid)),
      database: [...sampler.pids].map((pid) => [pid, processCpuSeconds(pid)] as const),
      self: process.cpuUsage(),
      machine: machineCpuSeconds(),
    });
    const commitsBefore = await commits(database.url);
    const before = cpuOf();
    const startedAt = performance.now();
    const finished = waitForFinishedRuns(database.url, warmUpRuns + RUNS, DRAIN_TIMEOUT_MS, 100);
    await enqueue(gateways, threadIds, RUNS, "measured");
    const enqueuedMs = performance.now() - startedAt;
    await finished;
    const seconds = (performance.now() - startedAt) / 1_000;
    const activity = await sampler.stop();
    const after = cpuOf();
    const commitsAfter = await commits(database.url);

    const databaseBefore = new Map(before.database);
    const databaseCpu = [...sampler.pids].reduce((sum, pid) => sum + processCpuSeconds(pid) - (databaseBefore.get(pid) ?? 0), 0);
    const selfCpu = (after.self.user + after.self.system - before.self.user - before.self.system) / 1e6;
    const ran = await runsPerReplica(database.url, replicaIds, since);
    return {
      replicas,
      runsPerSecond: RUNS / seconds,
      enqueuePerSecond: (RUNS * 1_000) / enqueuedMs,
      seconds,
      perReplica: replicaIds.map((_, i) => {
        const pool = activity.byApplication[applicationName(i)] ?? { connections: 0, active: 0, idleInTransaction: 0, maxConnections: 0 };
        return {
          runs: ran[i],
          cores: (after.gateways[i] - before.gateways[i]) / seconds,
          connections: pool.connections,
          maxConnections: pool.maxConnections,
          activeConnections: pool.active,
          idleInTransaction: pool.idleInTransaction,
        };
      }),
      databaseCores: databaseCpu / seconds,
      loadGeneratorCores: selfCpu / seconds,
      machineBusyCores: ((after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total)) * availableParallelism(),
      commitsPerRun: (commitsAfter - commitsBefore) / RUNS,
      lockWaits: activity.lockWaits,
      waits: activity.waits,
      loadAverage: loadavg()[0],
    };
  } finally {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await database.drop();
  }
}

const fixed = (n: number, digits = 2) => n.toFixed(digits);

/** The three wait events the most backends waited on, mean backends over the measurements. */
function topWaits(measurements: Measurement[]): string {
  const events = [...new Set(measurements.flatMap((m) => Object.keys(m.waits)))];
  const means = events.map((event) => [event, measurements.reduce((sum, m) => sum + (m.waits[event] ?? 0), 0) / measurements.length] as const);
  return means
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([event, mean]) => `${event} ${fixed(mean)}`)
    .join(", ");
}

/** Cores the machine spent on processes other than this figure's (other work on a shared machine). */
const othersCores = (m: Measurement) =>
  Math.max(0, m.machineBusyCores - m.databaseCores - m.loadGeneratorCores - m.perReplica.reduce((sum, replica) => sum + replica.cores, 0));

/** One line per replica count: throughput and where the cores and connections went (medians of repetitions). */
function describe(replicas: number, measurements: Measurement[], baseline: number): string {
  const mine = measurements.filter((m) => m.replicas === replicas);
  const med = (read: (m: Measurement) => number) => median(mine.map(read));
  const rates = mine.map((m) => m.runsPerSecond);
  const perReplica = Array.from({ length: replicas }, (_, i) => {
    const side = (read: (r: ReplicaSide) => number) => med((m) => read(m.perReplica[i]));
    return (
      `r${i + 1} ${fixed(side((r) => r.cores))} cores, ${Math.round(side((r) => r.runs))} runs, ` +
      `${fixed(side((r) => r.connections), 1)} conns (max ${side((r) => r.maxConnections)}), ${fixed(side((r) => r.activeConnections))} active, ${fixed(side((r) => r.idleInTransaction))} idle in transaction`
    );
  });
  return [
    `${replicas} replica${replicas > 1 ? "s" : ""}: ${fixed(med((m) => m.runsPerSecond), 1)} runs/s (${fixed(Math.min(...rates), 1)}–${fixed(Math.max(...rates), 1)}), ×${fixed(med((m) => m.runsPerSecond) / baseline)} of 1;`,
    `enqueue ${fixed(med((m) => m.enqueuePerSecond), 1)}/s;`,
    `${perReplica.join("; ")};`,
    `PostgreSQL backends ${fixed(med((m) => m.databaseCores))} cores, ~${fixed(med((m) => m.commitsPerRun), 1)} commits per run, lock waits ${fixed(med((m) => m.lockWaits.mean))} (max ${med((m) => m.lockWaits.max)}), top waits ${topWaits(mine)};`,
    `load generator ${fixed(med((m) => m.loadGeneratorCores))} cores; machine busy ${fixed(med((m) => m.machineBusyCores))} of ${availableParallelism()} cores, of which other processes ${fixed(med(othersCores))}; load average ${fixed(med((m) => m.loadAverage), 1)}`,
  ].join(" ");
}

export const b6ScaleOut: Figure = {
  id: "B6",
  title: `scale-out: ${RUNS} queued runs over ${THREADS} threads drained, runs/s with 2 gateway replicas on one PostgreSQL (value) / 1 replica (baseline), ${CONNECTIONS} client connections round-robin`,
  async run() {
    const measurements: Measurement[] = [];
    for (let rep = 0; rep < REPETITIONS; rep += 1) {
      // Rotate the order, so drift on a shared machine does not favour one replica count.
      for (let i = 0; i < REPLICA_COUNTS.length; i += 1) measurements.push(await measure(REPLICA_COUNTS[(i + rep) % REPLICA_COUNTS.length]));
    }
    const rate = (replicas: number, rep: number) => measurements.filter((m) => m.replicas === replicas)[rep].runsPerSecond;
    const reps = Array.from({ length: REPETITIONS }, (_, rep) => rep);
    // Each repetition measures every replica count within a few minutes: the ratio within a repetition
    // sees the same machine load on both sides; the median of those ratios is the figure.
    const ratioOf = (replicas: number) => median(reps.map((rep) => rate(replicas, rep) / rate(1, rep)));
    const baseline = median(reps.map((rep) => rate(1, rep)));
    const ratio = ratioOf(2);
    return {
      unit: "runs/s",
      value: median(reps.map((rep) => rate(2, rep))),
      baseline,
      baselineName: "1 replica, same run",
      ratio,
      better: "higher",
      target: TARGET,
      ok: ratio >= TARGET,
      raw: { runs: RUNS, threads: THREADS, connections: CONNECTIONS, repetitions: REPETITIONS, ratio3: ratioOf(3), measurements },
      details: [
        `ratio (median of each repetition's ratio): 2 replicas ${fixed(ratio)}, 3 replicas ${fixed(ratioOf(3))} (target ≥ ${TARGET} with 2)`,
        ...REPLICA_COUNTS.map((replicas) => describe(replicas, measurements, baseline)),
        `medians (min–max) of ${REPETITIONS} repetitions, each on fresh replicas and database, after ${WARM_UP_RUNS_PER_REPLICA} warm-up runs per replica; cores = CPU seconds / wall seconds of the drain`,
      ],
    };
  },
};
