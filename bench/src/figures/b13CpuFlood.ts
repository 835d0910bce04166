// B13 (issue 42): noisy neighbour under a CPU-heavy flood. As B9, one gateway replica (a real process
// from the CLI) on PostgreSQL stores, authentication on, every other setting at its default; tenant B's
// `wait` runs, one after another on distinct threads, are timed on the quiet replica, then while
// tenant A floods it. Unlike B9's sleeping runs, A's are plain scripted runs (each burns the replica's
// CPU: a graph run, its checkpoints and events), offered by 40 concurrent clients while B's runs go
// on: B shares the event loop with A's HTTP flood and with A's runs. The figure is B's p99 under the
// flood over B's quiet p99, same run; target ≤ 3. Cheap refusals of A's excess (429) count.
import { createTestDatabase } from "@axiom-lattice/testing/database";
import { setTimeout as sleep } from "node:timers/promises";
import type { Figure } from "../figure";
import { GatewayApi } from "../gatewayApi";
import { startGateway } from "../gatewayProcess";
import { bearer, flood, summarise, timedRuns } from "../noisyNeighbour";

const SECRET = "b13-noisy-neighbour-secret-of-32-characters";
const ASSISTANT = "bench-b13";
/** B's timed runs per phase, after warm-up runs that are left out. */
const B_RUNS = Number(process.env.B13_B_RUNS ?? 20);
const WARM_UP_RUNS = 5;
/** A's flood (issue 42): so many scripted runs over so many threads, from so many clients at once. */
const A_THREADS = 200;
const A_RUNS = Number(process.env.B13_A_RUNS ?? 2_000);
const A_CONCURRENCY = 40;
/** B starts once this many of A's runs are queued: the flood is on, and A's runs are running. */
const FLOOD_UNDER_WAY = 100;
const TARGET_RATIO = 3;
/** `B13_SUBMISSIONS=0` measures the replica without its per-tenant submissions limit, as before issue 42's fix. */
const SUBMISSIONS: Record<string, string> = process.env.B13_SUBMISSIONS === undefined ? {} : { AXIOM_TENANT_MAX_RUN_SUBMISSIONS: process.env.B13_SUBMISSIONS };

export const b13CpuFlood: Figure = {
  id: "B13",
  title: `noisy neighbour under a CPU-heavy flood: tenant B's wait-run p99 while tenant A queues ${A_RUNS} scripted runs (${A_CONCURRENCY} clients) over B's quiet p99 (authentication on, default settings, one replica), target ≤ ${TARGET_RATIO}`,
  async run() {
    const database = await createTestDatabase("lattice_bench_b13");
    try {
      const gateway = await startGateway({ name: "B13 gateway", databaseUrl: database.url, env: { AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET, ...SUBMISSIONS } });
      try {
        const a = new GatewayApi(gateway.url, bearer(SECRET, "tenant-a"));
        const b = new GatewayApi(gateway.url, bearer(SECRET, "tenant-b"));
        await a.createAssistant(ASSISTANT);
        await b.createAssistant(ASSISTANT);
        const aThreads = await a.createThreads(ASSISTANT, "b13-a", A_THREADS);
        const bThreads = await b.createThreads(ASSISTANT, "b13-b", 2 * (WARM_UP_RUNS + B_RUNS));
        const bRuns = (threadIds: string[]) => timedRuns(b, ASSISTANT, threadIds, WARM_UP_RUNS, "hello from B13");

        const quiet = await bRuns(bThreads.slice(0, WARM_UP_RUNS + B_RUNS));
        const flooding = flood(a, { assistantId: ASSISTANT, threadIds: aThreads, runs: A_RUNS, concurrency: A_CONCURRENCY, message: "B13 flood", label: "B13" });
        while (flooding.counts.accepted + flooding.counts.refused < FLOOD_UNDER_WAY) await sleep(10);
        const busy = await bRuns(bThreads.slice(WARM_UP_RUNS + B_RUNS));
        const answeredDuringB = { ...flooding.counts };
        const offered = await flooding.done;
        // B's runs must have been timed under the flood, not after it.
        if (answeredDuringB.accepted + answeredDuringB.refused >= A_RUNS) {
          const aQueued = (await a.queueSizes(aThreads)).reduce((sum, size) => sum + size, 0);
          if (aQueued === 0) throw new Error("B13: A's flood was over before B's runs ended: too small to measure anything");
        }

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
            note: `${B_RUNS} sequential wait runs of tenant B on distinct threads per phase (after ${WARM_UP_RUNS} warm-up runs), quiet then during A's flood`,
            quietMs,
            underFloodMs: busyMs,
            flood: { offered: A_RUNS, ...offered, answeredWhileBRan: answeredDuringB, threads: A_THREADS, concurrency: A_CONCURRENCY, refusedAs: "429" },
          },
          details: [
            `B's wait runs p50 / p99: quiet ${quietMs.p50.toFixed(1)} / ${quietMs.p99.toFixed(1)} ms, during A's flood ${busyMs.p50.toFixed(1)} / ${busyMs.p99.toFixed(1)} ms`,
            `A's flood: ${offered.accepted} runs queued, ${offered.refused} refused (429) of ${A_RUNS} offered by ${A_CONCURRENCY} clients; ${answeredDuringB.accepted + answeredDuringB.refused} answered while B's runs went on`,
          ],
        };
      } finally {
        await gateway.stop();
      }
    } finally {
      await database.drop();
    }
  },
};
