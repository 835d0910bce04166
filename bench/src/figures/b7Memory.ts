// B7 (performance.md): memory of one gateway replica on in-memory stores (a real process started from
// the CLI): RSS when idle (after start-up and a settle), and after 10k runs queued over HTTP
// (`mode: "queue"`, spread over many threads) have all been processed. Each reading is taken after a
// full garbage collection (see memoryProbe), so what remains is live memory, not garbage yet to go.
//
// With in-memory stores the replica legitimately keeps what it was given: threads, run records (up to
// 1,000 per thread), every checkpoint of every conversation (MemorySaver), and the chunk buffers of
// ended messages for their retention time. The raw output gives the sizes needed to tell that data
// from a leak.
import { setTimeout as sleep } from "node:timers/promises";
import type { Figure } from "../figure";
import { GatewayApi } from "../gatewayApi";
import { startGateway } from "../gatewayProcess";
import { postLoad } from "../httpLoad";
import { MEMORY_PROBE_FLAGS, readMemory } from "../memoryProbe";

const RUNS = 10_000;
// 10 runs per thread: conversations of a realistic length, far below the queue capacity per thread.
const THREADS = 1_000;
const CONNECTIONS = 20;
const IDLE_SETTLE_MS = 3_000;
const LOADED_SETTLE_MS = 5_000;
const DRAIN_TIMEOUT_MS = 15 * 60_000;
const TARGET_IDLE_MB = 150;
const TARGET_GROWTH_MB = 50;
const ASSISTANT = "bench-b7";

const round = (mb: number) => Math.round(mb * 10) / 10;

export const b7Memory: Figure = {
  id: "B7",
  title: `memory: RSS after ${RUNS / 1000}k queued runs (value) vs idle (baseline), idle ≤ ${TARGET_IDLE_MB} MB, target = idle + ${TARGET_GROWTH_MB} MB`,
  async run() {
    const gateway = await startGateway({ name: "B7 gateway", nodeFlags: MEMORY_PROBE_FLAGS });
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
      const drainMs = await api.waitUntilDrained(threadIds, DRAIN_TIMEOUT_MS);
      await sleep(LOADED_SETTLE_MS);
      const loaded = await readMemory(gateway);

      const target = round(idle.rssAfterGcMb + TARGET_GROWTH_MB);
      return {
        unit: "MB",
        value: loaded.rssAfterGcMb,
        baseline: idle.rssAfterGcMb,
        target,
        ok: idle.rssAfterGcMb <= TARGET_IDLE_MB && loaded.rssAfterGcMb <= target,
        raw: {
          runs: RUNS,
          threads: THREADS,
          note: `RSS from /proc/<pid>/status after a forced full GC; ${RUNS} runs queued with ${CONNECTIONS} connections over ${THREADS} threads, all processed before the reading`,
          targets: { idleMb: TARGET_IDLE_MB, growthMb: TARGET_GROWTH_MB },
          idle,
          afterLoad: loaded,
          // Live data is heapUsed + external; the rest of the RSS growth is heap V8 keeps committed
          // (heapTotal − heapUsed, returned only after a longer idle) and allocator fragmentation.
          growthMb: {
            rss: round(loaded.rssAfterGcMb - idle.rssAfterGcMb),
            heapUsed: round(loaded.heapUsedAfterGcMb - idle.heapUsedAfterGcMb),
            heapTotal: round(loaded.heapTotalAfterGcMb - idle.heapTotalAfterGcMb),
            external: round(loaded.externalAfterGcMb - idle.externalAfterGcMb),
            arrayBuffers: round(loaded.arrayBuffersAfterGcMb - idle.arrayBuffersAfterGcMb),
          },
          liveBytesPerRun: Math.round(
            ((loaded.heapUsedAfterGcMb + loaded.externalAfterGcMb - idle.heapUsedAfterGcMb - idle.externalAfterGcMb) * 1024 * 1024) / RUNS,
          ),
          enqueue: { requestsPerSecond: load.requestsPerSecond, seconds: load.seconds, latencyMs: load.latencyMs },
          drainMsAfterLoad: drainMs,
        },
      };
    } finally {
      await gateway.stop();
    }
  },
};
