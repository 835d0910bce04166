// B9: noisy neighbour. One gateway replica (a real process from the CLI) on PostgreSQL stores, with
// authentication on and every other setting at its default. Tenant B's `wait` runs, one after another
// on distinct threads, are timed first on a quiet replica, then while tenant A floods it: runs queued
// on many threads, each run holding its slot for a while, far more than the replica's slots. The figure
// is B's p99 under the flood over B's quiet p99, in the same run; target ≤ 2. A's backlog must still
// be waiting when B's last run ends: B never waited for it.
// The database helper alone: the package root also holds vitest suites, which a plain script cannot load.
import { createTestDatabase } from "@axiom-lattice/testing/database";
import { performance } from "node:perf_hooks";
import type { Figure } from "../figure";
import { GatewayApi } from "../gatewayApi";
import { startGateway } from "../gatewayProcess";
import { bearer, flood, metric, summarise, timedRuns } from "../noisyNeighbour";

const SECRET = "b9-noisy-neighbour-secret-of-32-characters";
const ASSISTANT = "bench-b9";
/** B's timed runs per phase, after warm-up runs that are left out. */
const B_RUNS = 100;
const WARM_UP_RUNS = 10;
/** A's flood: so many runs offered over so many threads, each run sleeping this long. */
const A_THREADS = 200;
const A_RUNS = 1_200;
const A_RUN_MS = 1_000;
/** A's runs in flight while it floods (its clients' concurrency). */
const A_CONCURRENCY = 20;
const TARGET_RATIO = 2;

export const b9NoisyNeighbour: Figure = {
  id: "B9",
  title: `noisy neighbour: tenant B's wait-run p99 under tenant A's flood over B's quiet p99 (authentication on, default settings), target ≤ ${TARGET_RATIO}`,
  async run() {
    const database = await createTestDatabase("lattice_bench_b9");
    try {
      const gateway = await startGateway({ name: "B9 gateway", databaseUrl: database.url, env: { AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET } });
      try {
        const a = new GatewayApi(gateway.url, bearer(SECRET, "tenant-a"));
        const b = new GatewayApi(gateway.url, bearer(SECRET, "tenant-b"));
        const bRuns = (threadIds: string[]) => timedRuns(b, ASSISTANT, threadIds, WARM_UP_RUNS, "hello from B9");
        await a.createAssistant(ASSISTANT);
        await b.createAssistant(ASSISTANT);
        const aThreads = await a.createThreads(ASSISTANT, "b9-a", A_THREADS);
        const bThreads = await b.createThreads(ASSISTANT, "b9-b", 2 * (WARM_UP_RUNS + B_RUNS));

        const quiet = await bRuns(bThreads.slice(0, WARM_UP_RUNS + B_RUNS));
        const floodStartedAt = performance.now();
        const offered = await flood(a, { assistantId: ASSISTANT, threadIds: aThreads, runs: A_RUNS, concurrency: A_CONCURRENCY, message: `/sleep ${A_RUN_MS}`, label: "B9" }).done;
        const floodSeconds = (performance.now() - floodStartedAt) / 1000;
        const waitingBefore = await metric(gateway.url, 'lattice_tenant_runs_waiting_threads{tenant="tenant-a"}');
        const busy = await bRuns(bThreads.slice(WARM_UP_RUNS + B_RUNS));
        const aActive = await metric(gateway.url, 'lattice_tenant_runs_active_threads{tenant="tenant-a"}');
        const aWaitingAfter = await metric(gateway.url, 'lattice_tenant_runs_waiting_threads{tenant="tenant-a"}');
        const aQueued = (await a.queueSizes(aThreads)).reduce((sum, size) => sum + size, 0);
        if (aQueued === 0) throw new Error("B9: A's backlog drained before B's runs ended: the flood was too small to measure anything");

        const quietMs = summarise(quiet);
        const busyMs = summarise(busy);
        const ratio = busyMs.p99 / quietMs.p99;
        return {
          unit: "ms",
          value: busyMs.p99,
          baseline: quietMs.p99,
          baselineName: "B's p99 on the quiet replica, same run",
          ratio,
          better: "lower",
          target: TARGET_RATIO,
          ok: ratio <= TARGET_RATIO,
          raw: {
            note: `${B_RUNS} sequential wait runs of tenant B on distinct threads per phase (after ${WARM_UP_RUNS} warm-up runs), quiet then under A's flood`,
            quietMs,
            underFloodMs: busyMs,
            flood: { offered: A_RUNS, ...offered, threads: A_THREADS, runMs: A_RUN_MS, seconds: floodSeconds, refusedAs: "429 QUEUE_FULL" },
            tenantA: { waitingThreadsBefore: waitingBefore, activeThreads: aActive, waitingThreadsAfter: aWaitingAfter, queuedMessagesAfter: aQueued },
          },
        };
      } finally {
        await gateway.stop();
      }
    } finally {
      await database.drop();
    }
  },
};
