// B2 (performance.md): outbox cross-process delivery latency, append called → peer handler entered,
// p50 / p99 at 50 and 500 events/s, with 2 poller processes that must each receive every event once
// (zero loss), against a bare LISTEN/NOTIFY round trip between two connections measured in the same
// run. Phases are short (a few seconds) to keep `pnpm bench` quick; the 50/s comparison is repeated,
// interleaved with the baseline, and the medians of the repetitions are reported.
import { PostgreSQLOutboxStore } from "@axiom-lattice/pg-stores";
// The database helper alone: the package root also holds vitest suites, which a plain script cannot load.
import { createTestDatabase } from "@axiom-lattice/testing/database";
import { fork, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Client, Pool } from "pg";
import { type Figure, median, percentile } from "../figure";
import type { B2Command, B2Message, B2Payload } from "./b2OutboxPoller";

const POLLERS = 2;
const APPEND_CONNECTIONS = 4;
const REPETITIONS = 3;
const LOW_RATE = 50;
const HIGH_RATE = 500;
const LOW_PHASE_MS = 2_000;
const HIGH_PHASE_MS = 4_000;
const TARGET_P50_MS = 5;
const TARGET_P99_MS = 20;

const now = () => performance.timeOrigin + performance.now();

interface Latencies {
  p50: number;
  p99: number;
  samples: number;
}

const summarise = (latencies: number[]): Latencies => ({ p50: percentile(latencies, 50), p99: percentile(latencies, 99), samples: latencies.length });

/**
 * Calls `fire(seq)` `rate` times a second for `ms`, on an absolute schedule (late calls catch up);
 * resolves once every call has, with how many were made and the rate they completed at.
 */
async function paced(rate: number, ms: number, fire: (seq: number) => Promise<unknown>): Promise<{ count: number; achievedRate: number }> {
  const count = Math.round((rate * ms) / 1_000);
  const interval = 1_000 / rate;
  const startedAt = performance.now();
  const inFlight: Promise<unknown>[] = [];
  for (let seq = 0; seq < count; seq += 1) {
    const wait = startedAt + seq * interval - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(fire(seq));
  }
  await Promise.all(inFlight);
  return { count, achievedRate: (count * 1_000) / (performance.now() - startedAt) };
}

/**
 * NOTIFY on one connection → notification on another, in this process: PostgreSQL's own floor. The
 * sender is a pool of the outbox appender's size, so overlapping sends are handled alike.
 */
export async function bareRoundTrips(url: string, rate: number, ms: number): Promise<number[]> {
  const listener = new Client({ connectionString: url });
  const sender = new Pool({ connectionString: url, max: APPEND_CONNECTIONS });
  await listener.connect();
  try {
    const latencies: number[] = [];
    listener.on("notification", (message) => latencies.push(now() - Number(message.payload)));
    await listener.query("LISTEN b2_bare");
    const { count: sent } = await paced(rate, ms, () => sender.query("SELECT pg_notify('b2_bare', $1)", [String(now())]));
    const deadline = Date.now() + 2_000;
    while (latencies.length < sent && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    if (latencies.length < sent) throw new Error(`B2: bare LISTEN/NOTIFY lost ${sent - latencies.length} of ${sent}`);
    return latencies;
  } finally {
    await Promise.all([listener.end(), sender.end()]);
  }
}

/** A forked poller process and a way to wait for its next message of a kind. */
class Peer {
  private readonly child: ChildProcess;
  private readonly inbox: B2Message[] = [];
  private waiter: (() => void) | undefined;

  constructor(url: string, owner: string) {
    // Forked with this process's execArgv, so the tsx loader that runs the bench runs the peer too.
    this.child = fork(join(__dirname, "b2OutboxPoller.ts"), [url, owner], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
    this.child.on("message", (message: B2Message) => {
      this.inbox.push(message);
      this.waiter?.();
    });
  }

  send(command: B2Command): void {
    this.child.send(command);
  }

  async next<T extends B2Message["type"]>(type: T, timeoutMs = 20_000): Promise<Extract<B2Message, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.inbox.findIndex((message) => message.type === type);
      if (index >= 0) return this.inbox.splice(index, 1)[0] as Extract<B2Message, { type: T }>;
      if (this.child.exitCode !== null || Date.now() > deadline) throw new Error(`B2: poller process sent no ${type}`);
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, 50);
      });
    }
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill();
  }
}

interface PhaseResult extends Latencies {
  rate: number;
  sent: number;
  /** Appends completed per second: below `rate` when the database could not keep up (latency then includes the backlog). */
  achievedRate: number;
  /** Per poller: events never delivered, and events delivered more than once. */
  lost: number[];
  duplicated: number[];
}

/** Appends at `rate` for `ms` and collects what each peer's handler saw. */
async function outboxPhase(store: PostgreSQLOutboxStore, peers: Peer[], phase: string, rate: number, ms: number): Promise<PhaseResult> {
  const { count: sent, achievedRate } = await paced(rate, ms, (seq) => {
    const payload: B2Payload = { phase, seq, sentAt: now() };
    return store.append({ topic: "b2", payload, originReplicaId: "b2-appender" });
  });
  const reports = [];
  for (const peer of peers) {
    peer.send({ cmd: "report", phase, expected: sent });
    reports.push(await peer.next("report"));
  }
  return {
    rate,
    sent,
    achievedRate,
    ...summarise(reports.flatMap((report) => report.latencies)),
    lost: reports.map((report) => sent - report.received),
    duplicated: reports.map((report) => report.duplicates),
  };
}

export const b2Outbox: Figure = {
  id: "B2",
  title: `outbox cross-process delivery p50 at ${LOW_RATE} events/s, ${POLLERS} poller processes (ms; ratio = p50 / its ${TARGET_P50_MS} ms target; p99 ≤ ${TARGET_P99_MS} ms and no loss too)`,
  async run() {
    const database = await createTestDatabase("lattice_bench_b2");
    const store = new PostgreSQLOutboxStore({ poolConfig: { connectionString: database.url, max: APPEND_CONNECTIONS } });
    const peers: Peer[] = [];
    try {
      await store.initialize();
      for (let i = 0; i < POLLERS; i += 1) peers.push(new Peer(database.url, `b2-poller-${i + 1}`));
      await Promise.all(peers.map((peer) => peer.next("ready")));
      // Warm both paths (connections, plans) before measuring.
      await bareRoundTrips(database.url, LOW_RATE, 500);
      await outboxPhase(store, peers, "warm-up", LOW_RATE, 500);

      const bare: Latencies[] = [];
      const low: PhaseResult[] = [];
      for (let rep = 0; rep < REPETITIONS; rep += 1) {
        bare.push(summarise(await bareRoundTrips(database.url, LOW_RATE, LOW_PHASE_MS)));
        low.push(await outboxPhase(store, peers, `low-${rep}`, LOW_RATE, LOW_PHASE_MS));
      }
      const high = await outboxPhase(store, peers, "high", HIGH_RATE, HIGH_PHASE_MS);

      const lowP50 = median(low.map((r) => r.p50));
      const lowP99 = median(low.map((r) => r.p99));
      const bareP50 = median(bare.map((r) => r.p50));
      const bareP99 = median(bare.map((r) => r.p99));
      const lossFree = [...low, high].every((r) => r.lost.every((n) => n === 0) && r.duplicated.every((n) => n === 0));
      for (const peer of peers) peer.send({ cmd: "stop" });
      await Promise.all(peers.map((peer) => peer.next("stopped")));
      return {
        unit: "ms",
        value: lowP50,
        baseline: TARGET_P50_MS,
        baselineName: "absolute target, performance.md",
        ratio: lowP50 / TARGET_P50_MS,
        better: "lower",
        target: 1,
        details: [
          `p50 ${lowP50.toFixed(1)} ms, p99 ${lowP99.toFixed(1)} ms (target ≤ ${TARGET_P99_MS}), lost or duplicated: ${lossFree ? "none" : "SOME"}`,
          `bare LISTEN/NOTIFY round trip, same run: p50 ${bareP50.toFixed(2)} ms, p99 ${bareP99.toFixed(2)} ms; outbox p50 / bare p50 ${(lowP50 / bareP50).toFixed(2)}`,
        ],
        ok: lowP50 <= TARGET_P50_MS && lowP99 <= TARGET_P99_MS && lossFree,
        raw: {
          pollers: POLLERS,
          repetitions: REPETITIONS,
          lossFree,
          targets: { p50Ms: TARGET_P50_MS, p99Ms: TARGET_P99_MS, at: `${LOW_RATE} events/s` },
          [`${LOW_RATE}/s`]: { p50: lowP50, p99: lowP99, p99Ratio: lowP99 / bareP99, phaseMs: LOW_PHASE_MS, repetitions: low },
          [`${HIGH_RATE}/s`]: { ...high, phaseMs: HIGH_PHASE_MS, p50Ratio: high.p50 / bareP50, p99Ratio: high.p99 / bareP99 },
          bareListenNotify: { p50: bareP50, p99: bareP99, phaseMs: LOW_PHASE_MS, repetitions: bare },
        },
      };
    } finally {
      for (const peer of peers) peer.kill();
      await store.dispose();
      await database.drop();
    }
  },
};
