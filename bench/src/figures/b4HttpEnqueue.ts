// B4 (performance.md): HTTP enqueue — `POST /api/runs` with `mode: "queue"`, requests/s answered 202
// by one gateway replica on in-memory stores (a real process started from the CLI), under autocannon
// with 20 connections, against a bare Fastify route in a process of its own answering the same JSON.
// Repetitions alternate the two sides, so both meet the same load from the rest of the machine.
//
// A queued message is then run by the replica in the background (the scripted model): that work
// competes with the HTTP path for the same event loop while the load runs, and is part of the cost.
// After each gateway repetition the figure waits until the queue is drained, so the backlog never
// runs during a baseline repetition, and reports how much was processed during the load and after.
import { join } from "node:path";
import { type Figure, median } from "../figure";
import { GatewayApi } from "../gatewayApi";
import { startGateway } from "../gatewayProcess";
import { type LoadResult, postLoad } from "../httpLoad";
import { ServerProcess } from "../serverProcess";

const CONNECTIONS = 20;
const REPETITIONS = 3;
// performance.md asks for 10 s; 5 s keeps a full `pnpm bench` reasonable (BENCH_SECONDS=10 for the design's length).
export const SECONDS = secondsFromEnv(process.env.BENCH_SECONDS, 5);
// The replica JIT-compiles the run path (LangGraph, LangChain) for a while: warm it up longer than the baseline needs.
const WARM_UP_SECONDS = 3;
// Fresh threads for each gateway load, so every repetition starts from short conversations; spread so
// that no thread nears its queue capacity (1,000) at a few thousand requests/s.
const THREADS = 200;
const DRAIN_TIMEOUT_MS = 10 * 60_000;
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
  /** How long the replica then took to run the backlog. */
  drainMs: number;
  /** Queued messages run per second, from the load's start to the queue's end. */
  processedPerSecond: number;
}

const messageBody = (threadIds: string[]) => {
  let next = 0;
  return () => JSON.stringify({ assistant_id: ASSISTANT, thread_id: threadIds[next++ % threadIds.length], message: "hello from B4", mode: "queue" });
};

/** One load on the gateway, on fresh threads of {@link ASSISTANT}, then the wait until the replicas ran all it accepted. */
export async function loadGateway(api: GatewayApi, label: string, seconds: number): Promise<GatewayRepetition> {
  const threadIds = await api.createThreads(ASSISTANT, label, THREADS);
  const load = await postLoad({ url: api.url, path: "/api/runs", body: messageBody(threadIds), connections: CONNECTIONS, seconds });
  if (load.non2xx || load.errors) throw new Error(`B4: the gateway answered ${load.non2xx} non-2xx and ${load.errors} errors`);
  const queuedWhenLoadEnded = (await api.queueSizes(threadIds)).reduce((sum, size) => sum + size, 0);
  const drainMs = await api.waitUntilDrained(threadIds, DRAIN_TIMEOUT_MS);
  const processedPerSecond = load.answered2xx / (load.seconds + drainMs / 1_000);
  return { ...load, queuedWhenLoadEnded, drainMs, processedPerSecond };
}

function loadBaseline(url: string, seconds: number): Promise<LoadResult> {
  return postLoad({ url, path: "/api/runs", body: messageBody(["baseline"]), connections: CONNECTIONS, seconds });
}

export const b4HttpEnqueue: Figure = {
  id: "B4",
  title: `HTTP enqueue (POST /api/runs mode=queue) req/s, 1 replica, in-memory stores, ${CONNECTIONS} connections`,
  async run() {
    const processes: ServerProcess[] = [];
    try {
      const gateway = await startGateway({ name: "B4 gateway" });
      processes.push(gateway);
      // Started with this process's flags, so the tsx loader that runs the bench runs the baseline too.
      const baseline = await ServerProcess.start({
        name: "B4 baseline",
        nodeArgs: [...process.execArgv, join(__dirname, "b4BaselineServer.ts")],
        env: {},
      });
      processes.push(baseline);
      const api = new GatewayApi(gateway.url);
      await api.createAssistant(ASSISTANT);

      await loadGateway(api, "warm-up", WARM_UP_SECONDS);
      await loadBaseline(baseline.url, WARM_UP_SECONDS);
      const gatewayRuns: GatewayRepetition[] = [];
      const baselineRuns: LoadResult[] = [];
      for (let rep = 0; rep < REPETITIONS; rep += 1) {
        // Alternate which side goes first, so neither always follows the other.
        if (rep % 2 === 1) baselineRuns.push(await loadBaseline(baseline.url, SECONDS));
        gatewayRuns.push(await loadGateway(api, `rep-${rep}`, SECONDS));
        if (rep % 2 === 0) baselineRuns.push(await loadBaseline(baseline.url, SECONDS));
      }

      const value = median(gatewayRuns.map((run) => run.requestsPerSecond));
      const baselineValue = median(baselineRuns.map((run) => run.requestsPerSecond));
      const ratio = value / baselineValue;
      return {
        unit: "req/s",
        value,
        baseline: baselineValue,
        baselineName: "bare Fastify route, same run",
        ratio,
        better: "higher",
        target: TARGET,
        ok: ratio >= TARGET,
        raw: {
          connections: CONNECTIONS,
          repetitions: REPETITIONS,
          secondsPerRepetition: SECONDS,
          note: `${REPETITIONS} repetitions × ${SECONDS} s per side (performance.md: 10 s; set BENCH_SECONDS). Gateway loads spread over ${THREADS} fresh threads each; queued messages are run by the scripted model in the background during and after the load (see queuedWhenLoadEnded, drainMs, processedPerSecond).`,
          gatewayProcessedPerSecond: median(gatewayRuns.map((run) => run.processedPerSecond)),
          gatewayRuns,
          baselineRuns,
        },
      };
    } finally {
      await Promise.all(processes.map((server) => server.stop()));
    }
  },
};
