import type { FastifyPluginAsync } from "fastify";
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { gatewayContextOf } from "../context/gatewayContext";

/**
 * `GET /metrics` in the Prometheus text format: process metrics, and this replica's runs, queue and
 * outbox delivery, read from the gateway context when scraped.
 */
export const metricsRoute: FastifyPluginAsync = async (app) => {
  const context = gatewayContextOf(app);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "lattice_" });

  new Gauge({
    name: "lattice_runs_active_threads",
    help: "Threads this replica is running now",
    registers: [registry],
    collect() {
      this.set(context.agents.stats().runningThreads);
    },
  });
  new Gauge({
    name: "lattice_runs_waiting_threads",
    help: "Threads waiting for a run slot on this replica (AXIOM_MAX_CONCURRENT_RUNS)",
    registers: [registry],
    collect() {
      this.set(context.agents.stats().waitingThreads);
    },
  });
  new Gauge({
    name: "lattice_stream_buffered_chunks",
    help: "Chunks held for streaming and resume_stream",
    registers: [registry],
    collect() {
      this.set(context.agents.stats().bufferedChunks);
    },
  });
  new Gauge({
    name: "lattice_queue_pending_messages",
    help: "Pending messages across all threads (the shared queue, as seen from this replica)",
    registers: [registry],
    async collect() {
      const threads = await context.stores.queue.getThreadsWithPendingMessages();
      this.set(threads.reduce((sum, thread) => sum + thread.pendingCount, 0));
    },
  });
  new Counter({
    name: "lattice_outbox_events_total",
    help: "Outbox events this replica's poller passed, by outcome",
    labelNames: ["outcome"],
    registers: [registry],
    collect() {
      // The poller keeps the totals; the counter reports them as they are.
      const { delivered, failed, skippedOwn, ignored } = context.outboxStats();
      this.reset();
      for (const [outcome, total] of Object.entries({ delivered, failed, skipped_own: skippedOwn, ignored })) this.inc({ outcome }, total);
    },
  });
  new Gauge({
    name: "lattice_outbox_horizon_age_seconds",
    help: "How long the oldest committed outbox event has waited behind a running transaction",
    registers: [registry],
    collect() {
      this.set(context.outboxStats().horizonAgeMs / 1000);
    },
  });
  new Gauge({
    name: "lattice_outbox_lag_seconds",
    help: "How long the oldest event of the poller's last page had waited when read",
    registers: [registry],
    collect() {
      this.set(context.outboxStats().lagMs / 1000);
    },
  });

  app.get("/metrics", async (_request, reply) => {
    const body = await registry.metrics();
    return reply.type(registry.contentType).send(body);
  });
};
