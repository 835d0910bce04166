// B7 (performance.md): memory of one gateway replica (a real process started from the CLI) on
// PostgreSQL stores, as replicas are deployed (AXIOM_REPLICA_ID set): RSS when idle, and after 10k runs
// queued over HTTP (`mode: "queue"`, spread over many threads) have all been processed. Each reading
// is taken after a settle and a forced full garbage collection (see memoryProbe), so what remains is
// live memory, not garbage yet to go.
//
// On PostgreSQL stores the conversations (threads, run records, checkpoints) live in the database, so
// what the process still holds after the load is what it retains by itself: the "no leak" of the
// target. (On in-memory stores the replica keeps, by design, every checkpoint of every conversation in
// LangGraph's MemorySaver, its run records and threads: there the growth after 10k runs is mostly that
// data — some 15 kB per run of live memory — so it says nothing about leaks, and is not measured.)
//
// What legitimately remains after the load: code V8 compiled for the run path, and the replay buffers
// of ended messages (bounded in total, dropped 5 minutes after their message ended; see ChunkBuffers).
// The settles let the allocation rate fall, so that the probe's collection also shrinks the young
// generation V8 grew for the load (right after a load it keeps it, ~30 MB); the collection compacts
// the old generation (see memoryProbe).
// The database helper alone: the package root also holds vitest suites, which a plain script cannot load.
import { createTestDatabase } from "@axiom-lattice/testing/database";
import { setTimeout as sleep } from "node:timers/promises";
import type { Figure } from "../figure";
import { waitForFinishedRuns } from "../finishedRuns";
import { GatewayApi } from "../gatewayApi";
import { startGateway } from "../gatewayProcess";
import { postLoad } from "../httpLoad";
import { MEMORY_PROBE_FLAGS, type MemoryReading, readMemory } from "../memoryProbe";

const RUNS = 10_000;
// 10 runs per thread: conversations of a realistic length, far below the queue capacity per thread.
const THREADS = 1_000;
const CONNECTIONS = 20;
const IDLE_SETTLE_MS = 15_000;
const LOADED_SETTLE_MS = 15_000;
const PROCESS_TIMEOUT_MS = 10 * 60_000;
const TARGET_IDLE_MB = 150;
const TARGET_GROWTH_MB = 50;
const ASSISTANT = "bench-b7";
const REPLICA_ID = "bench-b7-replica";

const round = (mb: number) => Math.round(mb * 10) / 10;

type MbField = "rssAfterGcMb" | "heapUsedAfterGcMb" | "heapTotalAfterGcMb" | "externalAfterGcMb";

/** Growth from idle to after the load, overall and per V8 heap space (live MB). */
function growthMb(idle: MemoryReading, loaded: MemoryReading) {
  const growth = (field: MbField) => round(loaded[field] - idle[field]);
  const spaces = Object.keys({ ...idle.heapSpacesAfterGcMb, ...loaded.heapSpacesAfterGcMb });
  return {
    rss: growth("rssAfterGcMb"),
    // Live data is heapUsed + external; the rest of the RSS growth is heap V8 keeps committed
    // (heapTotal − heapUsed) and memory outside the V8 heap (allocator, compiler zones, buffers).
    heapUsed: growth("heapUsedAfterGcMb"),
    heapTotal: growth("heapTotalAfterGcMb"),
    external: growth("externalAfterGcMb"),
    heapSpacesUsed: Object.fromEntries(
      spaces.map((space) => [space, round((loaded.heapSpacesAfterGcMb[space]?.used ?? 0) - (idle.heapSpacesAfterGcMb[space]?.used ?? 0))]),
    ),
  };
}

export const b7Memory: Figure = {
  id: "B7",
  title: `memory: RSS of 1 replica on PostgreSQL stores after ${RUNS / 1000}k queued runs (ratio = / its idle RSS + ${TARGET_GROWTH_MB} MB; idle ≤ ${TARGET_IDLE_MB} MB too)`,
  async run() {
    const database = await createTestDatabase("lattice_bench_b7");
    try {
      const gateway = await startGateway({ name: "B7 gateway", databaseUrl: database.url, replicaId: REPLICA_ID, nodeFlags: MEMORY_PROBE_FLAGS });
      try {
        await sleep(IDLE_SETTLE_MS);
        const idle = await readMemory(gateway);

        const api = new GatewayApi(gateway.url);
        await api.createAssistant(ASSISTANT);
        const threadIds = await api.createThreads(ASSISTANT, "b7", THREADS);
        let next = 0;
        const body = () => JSON.stringify({ assistant_id: ASSISTANT, thread_id: threadIds[next++ % THREADS], message: `B7 message ${next}`, mode: "queue" });
        const load = await postLoad({ url: gateway.url, path: "/api/runs", body, connections: CONNECTIONS, amount: RUNS });
        if (load.answered2xx !== RUNS) throw new Error(`B7: ${load.answered2xx} of ${RUNS} runs were queued (${load.non2xx} non-2xx, ${load.errors} errors)`);
        const processedMsAfterLoad = await waitForFinishedRuns(database.url, RUNS, PROCESS_TIMEOUT_MS).catch((error: Error) => {
          throw new Error(`B7: ${error.message}`);
        });
        await sleep(LOADED_SETTLE_MS);
        const loaded = await readMemory(gateway);

        const growth = growthMb(idle, loaded);
        const target = round(idle.rssAfterGcMb + TARGET_GROWTH_MB);
        return {
          unit: "MB",
          value: loaded.rssAfterGcMb,
          baseline: target,
          baselineName: `idle RSS + ${TARGET_GROWTH_MB} MB, same run`,
          ratio: loaded.rssAfterGcMb / target,
          better: "lower",
          target: 1,
          details: [`idle ${idle.rssAfterGcMb} MB (target ≤ ${TARGET_IDLE_MB}), after the load ${loaded.rssAfterGcMb} MB: grew ${growth.rss} MB (allowed ${TARGET_GROWTH_MB})`],
          ok: idle.rssAfterGcMb <= TARGET_IDLE_MB && loaded.rssAfterGcMb <= target,
          raw: {
            runs: RUNS,
            threads: THREADS,
            note: `VmRSS from /proc/<pid>/status after a settle (idle ${IDLE_SETTLE_MS / 1000} s after start-up; ${LOADED_SETTLE_MS / 1000} s after the last run) and a forced full, compacting GC; ${RUNS} runs queued with ${CONNECTIONS} connections over ${THREADS} threads, all processed (successfully) before the reading`,
            targets: { idleMb: TARGET_IDLE_MB, growthMb: TARGET_GROWTH_MB },
            idle,
            afterLoad: loaded,
            growthMb: growth,
            liveBytesPerRun: Math.round(((growth.heapUsed + growth.external) * 1024 * 1024) / RUNS),
            enqueue: { requestsPerSecond: load.requestsPerSecond, seconds: load.seconds, latencyMs: load.latencyMs },
            processedMsAfterLoad,
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
