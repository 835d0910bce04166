// B11 (issues 24, 26 and 37): the gateway beside the LangGraph JS API server (`@langchain/langgraph-api`
// 2.0, in memory, started by `langgraphjs dev`), side by side in one run, all driven by the same
// client code over the LangGraph HTTP protocol (the official SDK's Client, no retries).
//
// Equal work on every side: the gateway's built-in `react` graph with its scripted model (default
// settings: it answers at once, echoing the input), in memory; the gateway serving the peer's own
// `langgraph.json` (a user's graph, issue 37); the peer's one-node graph of peer/echoGraph.mjs, which
// appends an AI message echoing the input. Every run is on a thread of its
// own (created beforehand), so no conversation grows. Per repetition each server is started fresh,
// warmed up, and measured on:
// - time to first event: sequential streamed runs (messages-tuple), request sent → first event after
//   `metadata`; p50 and p99.
// - `wait`: 16 clients, each sending its next `runs.wait` when the previous answered; runs/s over the
//   batch's wall time, and the calls' p99.
// - enqueue: 16 clients sending background runs (`runs.create`), one per thread; accepted runs/s.
// - drain: the same backlog, from the first enqueue to every thread idle again (polled, 50 ms);
//   finished runs/s. Every thread is then checked to be idle (none failed).
// The servers alternate which goes first. Medians of the repetitions; each metric is a ratio with
// >1 meaning the gateway is better (gateway/peer for throughputs, peer/gateway for latencies), and
// the target (issue 24) is ≥ 1.5 on each, tail latencies included. The figure's value is the weakest
// of the six ratios.
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { type Figure, median, percentile } from "../figure";
import { startGateway } from "../gatewayProcess";
import { forEachConcurrently } from "../concurrently";
import { LangGraphClient } from "../langgraphClient";
import { startLangGraphPeer } from "../langgraphPeerProcess";
import type { ServerProcess } from "../serverProcess";

const REPETITIONS = 3;
const WARM_UP_RUNS = 20;
const STREAMED_RUNS = 100;
const CLIENTS = 16;
const WAIT_RUNS = 400;
const BACKLOG_RUNS = 1_000;
const DRAIN_POLL_MS = 50;
const DRAIN_TIMEOUT_MS = 180_000;
const TARGET = 1.5;

/** The gateway's two ways to run the work, each compared with the peer. */
const GATEWAYS = ["gateway", "gateway, user graph"] as const;

interface Side {
  name: (typeof GATEWAYS)[number] | "peer";
  graphId: string;
  start(): Promise<ServerProcess>;
}

const PEER_CONFIG = resolve(__dirname, "../../peer/langgraph.json");

const SIDES: Side[] = [
  { name: "gateway", graphId: "react", start: () => startGateway({ name: "B11 gateway" }) },
  // The peer's own langgraph.json and graph, deployed on the gateway as a LangGraph user brings theirs.
  { name: "gateway, user graph", graphId: "echo", start: () => startGateway({ name: "B11 gateway (user graph)", env: { AXIOM_LANGGRAPH_CONFIG: PEER_CONFIG } }) },
  { name: "peer", graphId: "echo", start: () => startLangGraphPeer("B11 LangGraph API server") },
];

/** One repetition's figures for one server. */
interface Measured {
  firstEventP50Ms: number;
  firstEventP99Ms: number;
  waitRunsPerSecond: number;
  waitP50Ms: number;
  waitP99Ms: number;
  enqueuePerSecond: number;
  drainRunsPerSecond: number;
  loadAverage: number;
}

async function measure(side: Side, repetition: number): Promise<Measured> {
  const server = await side.start();
  try {
    const client = new LangGraphClient(server.url);
    const assistantId = await client.createAssistant(side.graphId);
    const tag = `b11-${repetition}`;

    const warmUpThreads = await client.createThreads(`${tag}-warm-up`, WARM_UP_RUNS);
    for (const threadId of warmUpThreads) await client.stream(assistantId, threadId, "warm up");

    const streamThreads = await client.createThreads(`${tag}-stream`, STREAMED_RUNS);
    const streamed = [];
    for (const threadId of streamThreads) streamed.push(await client.stream(assistantId, threadId, "hello from B11"));
    const firstEvent = streamed.map((run) => run.firstEventMs);

    const waitThreads = await client.createThreads(`${tag}-wait`, WAIT_RUNS);
    const waitStartedAt = performance.now();
    const waitLatencies = await forEachConcurrently(waitThreads, CLIENTS, (threadId) => client.wait(assistantId, threadId, "hello from B11"));
    const waitSeconds = (performance.now() - waitStartedAt) / 1000;

    const backlogTag = `${tag}-backlog`;
    const backlogThreads = await client.createThreads(backlogTag, BACKLOG_RUNS);
    const enqueueStartedAt = performance.now();
    await forEachConcurrently(backlogThreads, CLIENTS, (threadId) => client.enqueue(assistantId, threadId, "hello from B11"));
    const enqueueSeconds = (performance.now() - enqueueStartedAt) / 1000;
    while ((await client.countThreads(backlogTag, "busy", 1)) > 0) {
      if (performance.now() - enqueueStartedAt > DRAIN_TIMEOUT_MS) throw new Error(`B11: ${side.name} did not drain ${BACKLOG_RUNS} runs in ${DRAIN_TIMEOUT_MS} ms`);
      await sleep(DRAIN_POLL_MS);
    }
    const drainSeconds = (performance.now() - enqueueStartedAt) / 1000;
    const idle = await client.countThreads(backlogTag, "idle", BACKLOG_RUNS);
    if (idle !== BACKLOG_RUNS) throw new Error(`B11: ${side.name} drained, but only ${idle} of ${BACKLOG_RUNS} backlog threads are idle`);

    return {
      firstEventP50Ms: percentile(firstEvent, 50),
      firstEventP99Ms: percentile(firstEvent, 99),
      waitRunsPerSecond: WAIT_RUNS / waitSeconds,
      waitP50Ms: percentile(waitLatencies, 50),
      waitP99Ms: percentile(waitLatencies, 99),
      enqueuePerSecond: BACKLOG_RUNS / enqueueSeconds,
      drainRunsPerSecond: BACKLOG_RUNS / drainSeconds,
      loadAverage: loadavg()[0],
    };
  } finally {
    await server.stop();
  }
}

interface Metric {
  label: string;
  key: keyof Measured;
  unit: string;
  /** Latencies: lower is better, so the ratio is peer/gateway. */
  lowerIsBetter: boolean;
}

const METRICS: Metric[] = [
  { label: "time to first event p50", key: "firstEventP50Ms", unit: "ms", lowerIsBetter: true },
  { label: "time to first event p99", key: "firstEventP99Ms", unit: "ms", lowerIsBetter: true },
  { label: `wait runs/s (${CLIENTS} clients)`, key: "waitRunsPerSecond", unit: "runs/s", lowerIsBetter: false },
  { label: `wait p99 (${CLIENTS} clients)`, key: "waitP99Ms", unit: "ms", lowerIsBetter: true },
  { label: `background enqueue (${CLIENTS} clients)`, key: "enqueuePerSecond", unit: "runs/s", lowerIsBetter: false },
  { label: `drain of ${BACKLOG_RUNS} background runs`, key: "drainRunsPerSecond", unit: "runs/s", lowerIsBetter: false },
];

const round = (n: number) => (n >= 100 ? Math.round(n) : Math.round(n * 10) / 10);

export const b11LangGraphPeer: Figure = {
  id: "B11",
  title: `LangGraph peer: weakest ratio of 6, the built-in graph and a user's graph, to the LangGraph JS API server 2.0 (in memory, same protocol, same trivial graph), target ≥ ${TARGET} on each`,
  async run() {
    const runs: Record<Side["name"], Measured[]> = { gateway: [], "gateway, user graph": [], peer: [] };
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      const order = repetition % 2 === 0 ? SIDES : [...SIDES].reverse();
      for (const side of order) runs[side.name].push(await measure(side, repetition));
    }
    const medianOf = (name: Side["name"], key: keyof Measured) => median(runs[name].map((run) => run[key]));
    const ratios = GATEWAYS.flatMap((gatewayName) =>
      METRICS.map((metric) => {
        const gateway = medianOf(gatewayName, metric.key);
        const peer = medianOf("peer", metric.key);
        const ratio = metric.lowerIsBetter ? peer / gateway : gateway / peer;
        return { ...metric, side: gatewayName, gateway, peer, ratio, pass: ratio >= TARGET };
      }),
    );
    const weakest = ratios.reduce((low, metric) => (metric.ratio < low.ratio ? metric : low));
    const loads = Object.values(runs).flatMap((measured) => measured.map((run) => run.loadAverage));
    const details = [
      ...ratios.map(
        (metric) =>
          `${metric.side}: ${metric.label}: gateway ${round(metric.gateway)} ${metric.unit}, peer ${round(metric.peer)} ${metric.unit}, ` +
          `${metric.lowerIsBetter ? "peer/gateway" : "gateway/peer"} ${metric.ratio.toFixed(2)} ${metric.pass ? "pass" : "FAIL"}`,
      ),
      ...GATEWAYS.map((name) => `${name}: wait p50 (${CLIENTS} clients): gateway ${round(medianOf(name, "waitP50Ms"))} ms, peer ${round(medianOf("peer", "waitP50Ms"))} ms`),
      `medians of ${REPETITIONS} repetitions; load average (1 min) during them ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} on this machine's cores`,
    ];
    return {
      unit: "×",
      value: weakest.ratio,
      // Each metric is already a ratio to the peer: the line's baseline is the peer's 1×.
      baseline: 1,
      baselineName: "LangGraph JS API server 2.0, same run",
      ratio: weakest.ratio,
      better: "higher",
      target: TARGET,
      ok: ratios.every((metric) => metric.pass),
      raw: {
        note: "ratios > 1 mean the gateway is better: gateway/peer for throughputs, peer/gateway for latencies; medians of repetitions",
        sizes: { warmUpRuns: WARM_UP_RUNS, streamedRuns: STREAMED_RUNS, clients: CLIENTS, waitRuns: WAIT_RUNS, backlogRuns: BACKLOG_RUNS },
        ratios: Object.fromEntries(
          GATEWAYS.map((name) => [
            name,
            Object.fromEntries(ratios.filter((metric) => metric.side === name).map((metric) => [metric.key, { gateway: metric.gateway, peer: metric.peer, ratio: metric.ratio, pass: metric.pass }])),
          ]),
        ),
        repetitions: runs,
      },
      details,
    };
  },
};
