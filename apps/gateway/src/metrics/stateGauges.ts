import type { AgentInstanceManager } from "@axiom-lattice/agent";
import type { MessageQueueStore, OutboxPollerStats } from "@axiom-lattice/core";
import { Gauge } from "prom-client";
import { answerWithin } from "../answerWithin";
import { READINESS_TIMEOUT_MS } from "../defaults";
import type { GatewayMetrics } from "./gatewayMetrics";

export interface GaugedState {
  agents: Pick<AgentInstanceManager, "stats">;
  queue: Pick<MessageQueueStore, "getThreadsWithPendingMessages">;
  outboxStats(): OutboxPollerStats;
}

/** Gauges of this replica's state, read when `/metrics` is scraped. */
export function registerStateGauges(metrics: GatewayMetrics, { agents, queue, outboxStats }: GaugedState): void {
  const registers = [metrics.registry];
  new Gauge({
    name: "lattice_runs_active_threads",
    help: "Threads this replica is running now",
    registers,
    collect() {
      this.set(agents.stats().runningThreads);
    },
  });
  new Gauge({
    name: "lattice_runs_waiting_threads",
    help: "Threads waiting for a run slot on this replica (AXIOM_MAX_CONCURRENT_RUNS)",
    registers,
    collect() {
      this.set(agents.stats().waitingThreads);
    },
  });
  new Gauge({
    name: "lattice_stream_buffered_chunks",
    help: "Chunks held for streaming and resume_stream",
    registers,
    collect() {
      this.set(agents.stats().bufferedChunks);
    },
  });
  new Gauge({
    name: "lattice_queue_pending_messages",
    help: "Pending messages across all threads (the shared queue, as seen from this replica)",
    registers,
    async collect() {
      // Read from the database: during an outage the scrape still answers promptly (the pool gauges
      // say why), this gauge keeping its last value.
      const threads = await answerWithin(READINESS_TIMEOUT_MS, queue.getThreadsWithPendingMessages()).catch(() => undefined);
      if (threads) this.set(threads.reduce((sum, thread) => sum + thread.pendingCount, 0));
    },
  });
  new Gauge({
    name: "lattice_outbox_horizon_age_seconds",
    help: "How long the oldest committed outbox event has waited behind a running transaction",
    registers,
    collect() {
      this.set(outboxStats().horizonAgeMs / 1000);
    },
  });
  new Gauge({
    name: "lattice_outbox_lag_seconds",
    help: "How long the oldest event of the poller's last page had waited when read",
    registers,
    collect() {
      this.set(outboxStats().lagMs / 1000);
    },
  });
}
