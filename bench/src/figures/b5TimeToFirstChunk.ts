// B5 (performance.md): streaming run time-to-first-chunk, p50 / p99, with the built-in scripted model
// on one gateway replica (a real process started from the CLI) on PostgreSQL stores. Measured from the
// moment `POST /api/runs` (`mode: "stream"`) is sent to the first SSE event of type `message_chunk`,
// over sequential runs on distinct threads (so every run starts a thread: no conversation grows).
// Absolute targets, no baseline; the first runs warm the replica (JIT, pools, plans) and are reported
// apart.
import { MessageChunkTypes } from "@axiom-lattice/protocols";
// The database helper alone: the package root also holds vitest suites, which a plain script cannot load.
import { createTestDatabase } from "@axiom-lattice/testing/database";
import { sseFrames } from "@axiom-lattice/testing/sse";
import { performance } from "node:perf_hooks";
import { type Figure, percentile } from "../figure";
import { GatewayApi } from "../gatewayApi";
import { startGateway } from "../gatewayProcess";

const RUNS = 200;
const WARM_UP_RUNS = 20;
const TARGET_P50_MS = 25;
const TARGET_P99_MS = 100;
const ASSISTANT = "bench-b5";

interface StreamedRun {
  firstChunkMs: number;
  /** Until `message_completed`: the next run starts only then. */
  completedMs: number;
}

/** Streams one run and times its first chunk and its end. */
async function streamRun(url: string, threadId: string): Promise<StreamedRun> {
  const startedAt = performance.now();
  const response = await fetch(`${url}/api/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ assistant_id: ASSISTANT, thread_id: threadId, message: "hello from B5", mode: "stream" }),
  });
  if (response.status !== 200) throw new Error(`B5: POST /api/runs answered ${response.status}: ${await response.text()}`);
  let firstChunkMs: number | undefined;
  for await (const event of sseFrames(response.body)) {
    if (event.data === undefined) continue;
    const chunk = JSON.parse(event.data) as { type: string; data: unknown };
    if (chunk.type === MessageChunkTypes.MESSAGE_CHUNK) firstChunkMs ??= performance.now() - startedAt;
    else if (chunk.type === MessageChunkTypes.MESSAGE_COMPLETED) {
      if (firstChunkMs === undefined) throw new Error(`B5: run on ${threadId} completed without a message_chunk`);
      return { firstChunkMs, completedMs: performance.now() - startedAt };
    } else if (chunk.type !== MessageChunkTypes.TOOL_CALL && chunk.type !== MessageChunkTypes.TOOL_RESULT) {
      throw new Error(`B5: run on ${threadId} ended with ${event.data}`);
    }
  }
  throw new Error(`B5: the stream of the run on ${threadId} ended before message_completed`);
}

const summarise = (values: number[]) => ({
  p50: percentile(values, 50),
  p99: percentile(values, 99),
  max: Math.max(...values),
  mean: values.reduce((sum, value) => sum + value, 0) / values.length,
});

export const b5TimeToFirstChunk: Figure = {
  id: "B5",
  title: `streaming time-to-first-chunk p50, scripted model, 1 replica, PostgreSQL stores (ms; ratio = p50 / its ${TARGET_P50_MS} ms target; p99 ≤ ${TARGET_P99_MS} ms too)`,
  async run() {
    const database = await createTestDatabase("lattice_bench_b5");
    try {
      const gateway = await startGateway({ name: "B5 gateway", databaseUrl: database.url });
      try {
        const api = new GatewayApi(gateway.url);
        await api.createAssistant(ASSISTANT);
        const threadIds = await api.createThreads(ASSISTANT, "b5", WARM_UP_RUNS + RUNS);
        const runs: StreamedRun[] = [];
        for (const threadId of threadIds) runs.push(await streamRun(gateway.url, threadId));

        const warmUp = runs.slice(0, WARM_UP_RUNS);
        const measured = runs.slice(WARM_UP_RUNS);
        const firstChunk = summarise(measured.map((run) => run.firstChunkMs));
        return {
          unit: "ms",
          value: firstChunk.p50,
          baseline: TARGET_P50_MS,
          baselineName: "absolute target, performance.md",
          ratio: firstChunk.p50 / TARGET_P50_MS,
          better: "lower",
          target: 1,
          details: [`p50 ${firstChunk.p50.toFixed(1)} ms, p99 ${firstChunk.p99.toFixed(1)} ms (target ≤ ${TARGET_P99_MS})`],
          ok: firstChunk.p50 <= TARGET_P50_MS && firstChunk.p99 <= TARGET_P99_MS,
          raw: {
            runs: RUNS,
            targets: { p50Ms: TARGET_P50_MS, p99Ms: TARGET_P99_MS },
            note: `${RUNS} sequential streaming runs on distinct threads after ${WARM_UP_RUNS} warm-up runs (excluded); request sent → first message_chunk event`,
            timeToFirstChunkMs: firstChunk,
            timeToCompletedMs: summarise(measured.map((run) => run.completedMs)),
            warmUpTimeToFirstChunkMs: { ...summarise(warmUp.map((run) => run.firstChunkMs)), first: warmUp[0].firstChunkMs },
            firstChunkMsInOrder: measured.map((run) => Math.round(run.firstChunkMs * 10) / 10),
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
