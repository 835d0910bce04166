// B12 (issue 26): run execution off the HTTP event loop. B4's load (`POST /api/runs`, `mode: "queue"`,
// 20 connections, fresh threads) on PostgreSQL, against an `AXIOM_ROLE=api` replica with one
// `AXIOM_ROLE=worker` beside it, and against one `AXIOM_ROLE=all` replica (the same run, a database
// of its own, so neither side's workers run the other's messages). The figure is the api replica's
// enqueue req/s over the all replica's, target ≥ 1: an api replica runs nothing, so its event loop
// answers requests only. Beside it, each side's drain: the backlog left when the load stopped, run
// per second by the worker, or by the all replica once it no longer answers requests.
//
// On 2 cores the worker, the api replica, PostgreSQL and the load generator share the machine: the
// worker's runs take CPU the api replica would otherwise have, so the ratio says how much of the
// all replica's loop its runs took, less what a second process costs, not what a worker on cores of
// its own would give.
import { type TestDatabase, createTestDatabase } from "@axiom-lattice/testing/database";
import { type Figure, median } from "../figure";
import { GatewayApi } from "../gatewayApi";
import { startGateway } from "../gatewayProcess";
import type { ServerProcess } from "../serverProcess";
import { ASSISTANT, type GatewayRepetition, SECONDS, loadGateway } from "./b4HttpEnqueue";

const REPETITIONS = 3;
const WARM_UP_SECONDS = 3;
const TARGET = 1;

type Side = "api+worker" | "all";

/** Backlog runs per second: what was still queued when the load stopped, over the time it took to run. */
const drainRate = (run: GatewayRepetition) => (run.drainMs > 0 ? run.queuedWhenLoadEnded / (run.drainMs / 1_000) : 0);

const summary = (runs: GatewayRepetition[]) => ({
  requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
  processedPerSecond: median(runs.map((run) => run.processedPerSecond)),
  drainPerSecond: median(runs.map(drainRate)),
  queuedWhenLoadEnded: median(runs.map((run) => run.queuedWhenLoadEnded)),
});

export const b12ApiWorkerRoles: Figure = {
  id: "B12",
  title: "HTTP enqueue req/s on an api replica with 1 worker vs 1 all replica, PostgreSQL, 20 connections",
  async run() {
    const databases: TestDatabase[] = [];
    const processes: ServerProcess[] = [];
    try {
      const split = await createTestDatabase("lattice_bench_b12_split");
      databases.push(split);
      const single = await createTestDatabase("lattice_bench_b12_all");
      databases.push(single);
      const api = await startGateway({ name: "B12 api", databaseUrl: split.url, replicaId: "b12-api", env: { AXIOM_ROLE: "api" } });
      processes.push(api);
      processes.push(await startGateway({ name: "B12 worker", databaseUrl: split.url, replicaId: "b12-worker", env: { AXIOM_ROLE: "worker" } }));
      const all = await startGateway({ name: "B12 all", databaseUrl: single.url, replicaId: "b12-all" });
      processes.push(all);
      const sides = new Map<Side, GatewayApi>([
        ["api+worker", new GatewayApi(api.url)],
        ["all", new GatewayApi(all.url)],
      ]);
      const runs = new Map<Side, GatewayRepetition[]>([
        ["api+worker", []],
        ["all", []],
      ]);
      for (const side of sides.values()) {
        await side.createAssistant(ASSISTANT);
        await loadGateway(side, "warm-up", WARM_UP_SECONDS);
      }
      for (let rep = 0; rep < REPETITIONS; rep += 1) {
        // Alternate which side goes first, so neither always follows the other.
        const order: Side[] = rep % 2 === 0 ? ["api+worker", "all"] : ["all", "api+worker"];
        for (const side of order) runs.get(side)!.push(await loadGateway(sides.get(side)!, `rep-${rep}`, SECONDS));
      }

      const splitSide = summary(runs.get("api+worker")!);
      const allSide = summary(runs.get("all")!);
      const ratio = splitSide.requestsPerSecond / allSide.requestsPerSecond;
      const round = (value: number) => Math.round(value);
      return {
        unit: "req/s",
        value: splitSide.requestsPerSecond,
        baseline: allSide.requestsPerSecond,
        baselineName: "1 AXIOM_ROLE=all replica on PostgreSQL, same run",
        ratio,
        better: "higher",
        target: TARGET,
        ok: ratio >= TARGET,
        details: [
          `runs/s from the load's start to an empty queue: api+worker ${round(splitSide.processedPerSecond)}, all ${round(allSide.processedPerSecond)}`,
          `backlog drained after the load: api+worker ${round(splitSide.drainPerSecond)} runs/s (${round(splitSide.queuedWhenLoadEnded)} queued), all ${round(allSide.drainPerSecond)} runs/s (${round(allSide.queuedWhenLoadEnded)} queued)`,
          `medians of ${REPETITIONS} repetitions × ${SECONDS} s per side, sides alternating; every process on the same cores`,
        ],
        raw: { repetitions: REPETITIONS, secondsPerRepetition: SECONDS, apiWorker: splitSide, all: allSide, runs: Object.fromEntries(runs) },
      };
    } finally {
      await Promise.all(processes.map((server) => server.stop()));
      await Promise.all(databases.map((database) => database.drop()));
    }
  },
};
