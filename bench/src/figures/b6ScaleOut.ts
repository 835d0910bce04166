// B6 (performance.md, issue 26): scale-out. 1, 2, 3 and 4 gateway replicas (real processes from the CLI)
// on one PostgreSQL database take the same load: a backlog of queued runs (`POST /api/runs`,
// `mode: "queue"`, scripted model) spread over many threads, sent round-robin to the replicas, timed
// from the first request until the last run has finished (read from the database). The figure is the
// runs/s of 2 replicas over 1 (and 3 and 4 over 1 below it), target ≥ 1.5 with 2.
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
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "pg";
import { type Figure, median } from "../figure";
import { waitForFinishedRuns } from "../finishedRuns";
import { GatewayApi } from "../gatewayApi";
import { startGateway } from "../gatewayProcess";
import { postLoad } from "../httpLoad";
import { type CommitCeiling, measureCommitCeiling } from "../commitCeiling";
import { type ActivitySummary, PgActivitySampler } from "../pgActivity";
import { type PgCounts, PG_COUNTER_FLAGS, pgCountsBetween, readPgCounts } from "../pgStatementCounter";
import { machineCpuSeconds, processCpuSeconds } from "../processCpu";
import type { ServerProcess } from "../serverProcess";

const REPLICA_COUNTS = [1, 2, 3, 4] as const;
const REPETITIONS = Number(process.env.B6_REPETITIONS ?? 3);
const RUNS = Number(process.env.B6_RUNS ?? 480);
// 2–3 runs per thread: enough threads that every replica's run slots always find one to run.
const THREADS = 200;
// Divisible by every replica count: each replica gets the same share of the load generator's connections.
const CONNECTIONS = 12;
// Each replica is warmed (JIT, pools, prepared statements) by this many runs before the measurement.
const WARM_UP_RUNS_PER_REPLICA = Number(process.env.B6_WARM_UP_RUNS ?? 30);
// After the warm-up, each replica's background cost (sweeps, presence, outbox polling, lease and
// leader upkeep) is measured idle for this long: what a replica costs per second with no run.
const IDLE_SECONDS = 5;
const DRAIN_TIMEOUT_MS = 10 * 60_000;
const TARGET = 1.5;
// Issue 42: an added replica costs nothing per run (CPU ms and transactions within ±10% of 1 replica's),
// and 2 and 3 replicas drain at least this share of 1 replica's runs/s on the same cores.
const PER_RUN_TOLERANCE = 0.1;
const THROUGHPUT_FLOOR = 0.95;
const ASSISTANT = "bench-b6";
// The primary's commit ceiling, measured once per run beside the replicas' figures (for the model in bench/README.md).
const CEILING_CLIENTS = [1, 8, 32] as const;
const CEILING_SECONDS = 4;
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
  /** Transactions ended in the database per measured run (pg_stat_database; the replicas' background work included). */
  transactionsPerRun: number;
  /** What each replica sent over the measurement, counted in the replica (its background work included). */
  counts: PgCounts[];
  /** Idle, before the measurement: CPU ms and transactions (counted in the replica) per second, per replica (mean). */
  idleCpuMsPerSecond: number;
  idleTransactionsPerSecond: number;
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
 * Transactions ended in the database so far (committed or rolled back, read-only ones included).
 * Backends report their counts at most once a second (and when idle), so a reading may miss the last
 * second's: the figure is approximate; the replicas' own count (pgStatementCounter) is exact.
 */
async function transactions(databaseUrl: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ ended: string }>(
      "SELECT xact_commit + xact_rollback AS ended FROM pg_stat_database WHERE datname = current_database()",
    );
    return Number(rows[0].ended);
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
      gateways.push(await startGateway({ name: `B6 replica ${i + 1}`, databaseUrl: url.toString(), replicaId, nodeFlags: PG_COUNTER_FLAGS }));
    }
    const api = new GatewayApi(gateways[0].url);
    await api.createAssistant(ASSISTANT);
    const threadIds = await api.createThreads(ASSISTANT, "b6", THREADS);
    const warmUpRuns = WARM_UP_RUNS_PER_REPLICA * replicas;
    await enqueue(gateways, threadIds, warmUpRuns, "warm-up");
    await waitForFinishedRuns(database.url, warmUpRuns, DRAIN_TIMEOUT_MS);
    const since = await lastSequence(database.url);
    const idle = await measureIdle(gateways);

    const sampler = await PgActivitySampler.start(database.url);
    const cpuOf = () => ({
      gateways: gateways.map((gateway) => processCpuSeconds(gateway.pid)),
      database: [...sampler.pids].map((pid) => [pid, processCpuSeconds(pid)] as const),
      self: process.cpuUsage(),
      machine: machineCpuSeconds(),
    });
    const transactionsBefore = await transactions(database.url);
    const countsBefore = await Promise.all(gateways.map((gateway) => readPgCounts(gateway)));
    const before = cpuOf();
    const startedAt = performance.now();
    const finished = waitForFinishedRuns(database.url, warmUpRuns + RUNS, DRAIN_TIMEOUT_MS, 100);
    await enqueue(gateways, threadIds, RUNS, "measured");
    const enqueuedMs = performance.now() - startedAt;
    await finished;
    const seconds = (performance.now() - startedAt) / 1_000;
    const activity = await sampler.stop();
    const after = cpuOf();
    const counts = (await Promise.all(gateways.map((gateway) => readPgCounts(gateway)))).map((count, i) => pgCountsBetween(countsBefore[i], count));
    const transactionsAfter = await transactions(database.url);

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
      transactionsPerRun: (transactionsAfter - transactionsBefore) / RUNS,
      counts,
      ...idle,
      lockWaits: activity.lockWaits,
      waits: activity.waits,
      loadAverage: loadavg()[0],
    };
  } finally {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await database.drop();
  }
}

/** Every replica idle for IDLE_SECONDS: its CPU and its transactions per second (means over the replicas). */
async function measureIdle(gateways: ServerProcess[]): Promise<{ idleCpuMsPerSecond: number; idleTransactionsPerSecond: number }> {
  // The warm-up's last releases and looks settle first.
  await sleep(1_000);
  const cpuBefore = gateways.map((gateway) => processCpuSeconds(gateway.pid));
  const countsBefore = await Promise.all(gateways.map((gateway) => readPgCounts(gateway)));
  const startedAt = performance.now();
  await sleep(IDLE_SECONDS * 1_000);
  const counts = (await Promise.all(gateways.map((gateway) => readPgCounts(gateway)))).map((count, i) => pgCountsBetween(countsBefore[i], count));
  const cpu = gateways.reduce((sum, gateway, i) => sum + processCpuSeconds(gateway.pid) - cpuBefore[i], 0);
  const seconds = (performance.now() - startedAt) / 1_000;
  const transactions = counts.reduce((sum, count) => sum + Object.values(count.transactions).reduce((a, b) => a + b, 0), 0);
  return { idleCpuMsPerSecond: (cpu * 1_000) / seconds / gateways.length, idleTransactionsPerSecond: transactions / seconds / gateways.length };
}

/** The bare commit loop's commits/s at each client count, on a fresh database of the same server. */
async function commitCeilings(): Promise<CommitCeiling[]> {
  const database = await createTestDatabase("lattice_bench_b6_commits");
  try {
    const ceilings: CommitCeiling[] = [];
    for (const clients of CEILING_CLIENTS) ceilings.push(await measureCommitCeiling(database.url, clients, CEILING_SECONDS));
    return ceilings;
  } finally {
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

/** Every replica's counts over one measurement, summed. */
function countsOf(m: Measurement): PgCounts {
  const transactions: Record<string, number> = {};
  for (const count of m.counts) for (const [kind, n] of Object.entries(count.transactions)) transactions[kind] = (transactions[kind] ?? 0) + n;
  return { statements: m.counts.reduce((sum, count) => sum + count.statements, 0), transactions };
}

/**
 * What a transaction kind (pgStatementCounter's) is for: first match wins. The run's own path first
 * (its request, tenure, checkpoints, events, completion), then what every replica does anyway.
 */
const CATEGORIES: [string, RegExp][] = [
  // Before migration 229, the enqueue was a transaction of its own statements.
  ["enqueue", /^(lattice_queue_enqueue$|tx\[SELECT pg_advisory_xact_lock\(186)/],
  ["queue notice", /^SELECT pg_notify/],
  ["thread/assistant reads", /^SELECT (lattice_threads|lattice_assistants|lattice_assistants,lattice_threads)$/],
  // A tenure's release of the lease with its last look at the queue, one call (issue 42).
  ["lease release with the queue look", /lattice_release_lease_then_pending/],
  ["lease", /^lattice_lease_(acquire|release)$/],
  ["refused lease", /^lattice_lease_acquire \(refused\)$/],
  ["take-back", /^UPDATE lattice_leases,lattice_thread_message_queue$/],
  // A new tenure takes its predecessors' claims back with its first claim, one statement (issue 42).
  ["claim", /^lattice_queue_(claim(_fenced)?|take_back_and_claim)$/],
  ["checkpoint reads", /^SELECT checkpoint/],
  ["checkpoint writes", /lattice_leases,checkpoint/],
  ["event-log batches", /lattice_run_events/],
  // With the next claim in the same statement while the tenure goes on (issue 42).
  ["completion", /^lattice_queue_complete(_and_claim(_fenced)?)?$/],
  ["queue look after release", /^SELECT lattice_thread_message_queue$/],
  ["A2A push-config look", /lattice_a2a_push_configs/],
  ["sweep lease reads", /^lattice_lease_(get|list)$/],
  ["outbox", /lattice_outbox/],
  ["presence/maintenance", /lattice_replica_presence|lattice_lease_renew|lattice_scheduled_tasks|lattice_tasks|UPDATE lattice_threads/],
];
const categoryOf = (kind: string) => CATEGORIES.find(([, pattern]) => pattern.test(kind))?.[0] ?? "other";

/** Per run, medians over the repetitions: transactions and statements counted in the replicas, by category. */
function breakdownOf(mine: Measurement[]): { transactions: number; statements: number; byCategory: [string, number][]; byKind: Record<string, number> } {
  const counted = mine.map(countsOf);
  const perRun = (read: (c: PgCounts) => number) => median(counted.map((c) => read(c) / RUNS));
  const inCategory = (c: PgCounts, category: string) => Object.entries(c.transactions).reduce((sum, [kind, n]) => sum + (categoryOf(kind) === category ? n : 0), 0);
  const kinds = [...new Set(counted.flatMap((c) => Object.keys(c.transactions)))];
  return {
    transactions: perRun((c) => Object.values(c.transactions).reduce((a, b) => a + b, 0)),
    statements: perRun((c) => c.statements),
    byCategory: [...CATEGORIES.map(([category]) => category), "other"]
      .map((category) => [category, perRun((c) => inCategory(c, category))] as [string, number])
      .filter(([, n]) => n > 0),
    byKind: Object.fromEntries(kinds.map((kind) => [kind, perRun((c) => c.transactions[kind] ?? 0)])),
  };
}

/** Lease attempts per run (acquired and refused): the wake-ups that reached the database. */
const leaseAttemptsPerRun = (m: Measurement) =>
  Object.entries(countsOf(m).transactions).reduce((sum, [kind, n]) => sum + (/^lattice_lease_acquire/.test(kind) ? n : 0), 0) / RUNS;

/** CPU milliseconds all replicas spent per run. */
const cpuMsPerRun = (m: Measurement) => (m.perReplica.reduce((sum, replica) => sum + replica.cores, 0) * m.seconds * 1_000) / RUNS;

/** Cores the machine spent on processes other than this figure's (other work on a shared machine). */
const othersCores = (m: Measurement) =>
  Math.max(0, m.machineBusyCores - m.databaseCores - m.loadGeneratorCores - m.perReplica.reduce((sum, replica) => sum + replica.cores, 0));

/** One line per replica count: throughput and where the cores and connections went (medians of repetitions). */
function describe(replicas: number, measurements: Measurement[], baseline: number): string {
  const mine = measurements.filter((m) => m.replicas === replicas);
  const med = (read: (m: Measurement) => number) => median(mine.map(read));
  const rates = mine.map((m) => m.runsPerSecond);
  const breakdown = breakdownOf(mine);
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
    `PostgreSQL backends ${fixed(med((m) => m.databaseCores))} cores, ~${fixed(med((m) => m.transactionsPerRun), 1)} transactions per run, lock waits ${fixed(med((m) => m.lockWaits.mean))} (max ${med((m) => m.lockWaits.max)}), top waits ${topWaits(mine)};`,
    `per run: ${fixed(med(cpuMsPerRun), 1)} CPU ms in the replicas, ${fixed(breakdown.transactions, 1)} transactions (${fixed(breakdown.statements, 1)} statements) counted in the replicas, ${fixed(med(leaseAttemptsPerRun))} thread-run lease attempts (wake-ups that reached the database): ${breakdown.byCategory.map(([category, n]) => `${category} ${fixed(n)}`).join(", ")};`,
    `load generator ${fixed(med((m) => m.loadGeneratorCores))} cores; machine busy ${fixed(med((m) => m.machineBusyCores))} of ${availableParallelism()} cores, of which other processes ${fixed(med(othersCores))}; load average ${fixed(med((m) => m.loadAverage), 1)}`,
  ].join(" ");
}

/** Per run, by replica count: what issue 42 wants flat (within ±10% of 1 replica's) and ≤ 8 transactions. */
function perRunAcross(measurements: Measurement[]): string[] {
  const of = (read: (mine: Measurement[]) => number) => REPLICA_COUNTS.map((replicas) => read(measurements.filter((m) => m.replicas === replicas)));
  const series = (values: number[], digits = 1) => `${values.map((v) => fixed(v, digits)).join(" → ")} (×${fixed(values[values.length - 1] / values[0])})`;
  const cpuMs = of((mine) => median(mine.map(cpuMsPerRun)));
  const counted = of((mine) => breakdownOf(mine).transactions);
  const flat = (name: string, values: number[]) => {
    const ratios = values.slice(1).map((v) => v / values[0]);
    const ok = ratios.every((r) => Math.abs(r - 1) <= PER_RUN_TOLERANCE);
    return `${name} ${ratios.map((r, i) => `×${fixed(r)} (${i + 2})`).join(", ")} ${ok ? "OK" : "SHORT"}`;
  };
  return [
    `per run, ${REPLICA_COUNTS.join(" → ")} replicas: CPU ms ${series(cpuMs)}, ` +
      `transactions counted in the replicas ${series(counted)}, ` +
      `in pg_stat_database ${series(of((mine) => median(mine.map((m) => m.transactionsPerRun))))}, ` +
      `thread-run lease attempts ${series(of((mine) => median(mine.map(leaseAttemptsPerRun))), 2)} (targets: flat within ±10%, ≤ 8 transactions)`,
    `issue 42 checks, N replicas over 1 (±${PER_RUN_TOLERANCE * 100}%): ${flat("CPU ms per run", cpuMs)}; ${flat("transactions per run", counted)}`,
    `idle, per replica (before each drain, ${IDLE_SECONDS} s): CPU ms/s ${series(of((mine) => median(mine.map((m) => m.idleCpuMsPerSecond))))}, ` +
      `transactions/s ${series(of((mine) => median(mine.map((m) => m.idleTransactionsPerSecond))), 2)}`,
  ];
}

export const b6ScaleOut: Figure = {
  id: "B6",
  title: `scale-out: ${RUNS} queued runs over ${THREADS} threads drained, runs/s with 2 gateway replicas on one PostgreSQL (value) / 1 replica (baseline), ${CONNECTIONS} client connections round-robin`,
  async run() {
    const ceilings = await commitCeilings();
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
    const floor = (replicas: number) => `${replicas} replicas ×${fixed(ratioOf(replicas))} ${ratioOf(replicas) >= THROUGHPUT_FLOOR ? "OK" : "SHORT"}`;
    return {
      unit: "runs/s",
      value: median(reps.map((rep) => rate(2, rep))),
      baseline,
      baselineName: "1 replica, same run",
      ratio,
      better: "higher",
      target: TARGET,
      ok: ratio >= TARGET,
      raw: {
        runs: RUNS,
        threads: THREADS,
        connections: CONNECTIONS,
        repetitions: REPETITIONS,
        ratio3: ratioOf(3),
        ratio4: ratioOf(4),
        ceilings,
        breakdowns: Object.fromEntries(REPLICA_COUNTS.map((replicas) => [replicas, breakdownOf(measurements.filter((m) => m.replicas === replicas))])),
        measurements,
      },
      details: [
        `ratio (median of each repetition's ratio): 2 replicas ${fixed(ratio)}, 3 replicas ${fixed(ratioOf(3))}, 4 replicas ${fixed(ratioOf(4))} (target ≥ ${TARGET} with 2)`,
        `issue 42 check, runs/s over 1 replica's on the same cores (≥ ${THROUGHPUT_FLOOR}): ${floor(2)}, ${floor(3)}`,
        ...perRunAcross(measurements),
        `PostgreSQL's commit ceiling here (bare one-row INSERT commits, ${CEILING_SECONDS} s each): ${ceilings.map((c) => `${c.clients} client${c.clients > 1 ? "s" : ""} ${Math.round(c.commitsPerSecond)}/s`).join(", ")}; load average ${fixed(loadavg()[0], 1)}`,
        ...REPLICA_COUNTS.map((replicas) => describe(replicas, measurements, baseline)),
        `medians (min–max) of ${REPETITIONS} repetitions, each on fresh replicas and database, after ${WARM_UP_RUNS_PER_REPLICA} warm-up runs per replica; cores = CPU seconds / wall seconds of the drain`,
      ],
    };
  },
};
