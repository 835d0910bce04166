import type { LatticeObserver } from "@axiom-lattice/core";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { FIRST_CHUNK_BUCKETS_S, HTTP_DURATION_BUCKETS_S, RUN_DURATION_BUCKETS_S } from "../defaults";

/** Lease keys are `<kind>:<details>`; only the kind is a label (the details name tenants and threads). */
export function leaseKind(key: string): string {
  const colon = key.indexOf(":");
  const kind = colon === -1 ? key : key.slice(0, colon);
  return /^[a-z][a-z-]{0,31}$/.test(kind) ? kind : "other";
}

/**
 * One gateway's Prometheus instruments, on a registry of its own: two gateways in one process never
 * share a series. Counters move when things happen (the {@link observer} and the store taps call
 * them); gauges read at scrape time are added by the `/metrics` route.
 */
export class GatewayMetrics {
  readonly registry = new Registry();

  readonly runs = new Counter({
    name: "lattice_runs_total",
    help: "Runs this replica finished and recorded, by outcome",
    labelNames: ["status"],
    registers: [this.registry],
  });
  readonly runDuration = new Histogram({
    name: "lattice_run_duration_seconds",
    help: "From claiming a message to recording its outcome, by outcome",
    labelNames: ["status"],
    buckets: RUN_DURATION_BUCKETS_S,
    registers: [this.registry],
  });
  readonly runFirstChunk = new Histogram({
    name: "lattice_run_first_chunk_seconds",
    help: "From claiming a message to its run's first chunk",
    buckets: FIRST_CHUNK_BUCKETS_S,
    registers: [this.registry],
  });
  readonly runHandOvers = new Counter({
    name: "lattice_run_handovers_total",
    help: "Runs this replica stopped unfinished (a holder of the thread runs the message again), by reason",
    labelNames: ["reason"],
    registers: [this.registry],
  });
  readonly queueClaims = new Counter({
    name: "lattice_queue_claims_total",
    help: "Queued messages this replica claimed to run",
    registers: [this.registry],
  });
  readonly queueReclaims = new Counter({
    name: "lattice_queue_reclaims_total",
    help: "Messages this replica took back from an earlier holder of their thread that left them claimed",
    registers: [this.registry],
  });
  readonly leaseAcquisitions = new Counter({
    name: "lattice_lease_acquisitions_total",
    help: "Leases this replica acquired, by kind (the key's first segment)",
    labelNames: ["kind"],
    registers: [this.registry],
  });
  readonly leaseLosses = new Counter({
    name: "lattice_lease_losses_total",
    help: "Lease renewals the store refused (the lease had expired or was taken over), by kind",
    labelNames: ["kind"],
    registers: [this.registry],
  });
  readonly outboxAppends = new Counter({
    name: "lattice_outbox_appends_total",
    help: "Outbox events this replica appended, by topic",
    labelNames: ["topic"],
    registers: [this.registry],
  });
  readonly outboxDeliveries = new Counter({
    name: "lattice_outbox_deliveries_total",
    help: "Outbox events this replica's poller passed, by outcome (delivered, failed, skipped_own, ignored)",
    labelNames: ["outcome"],
    registers: [this.registry],
  });
  readonly scheduleFires = new Counter({
    name: "lattice_schedule_fires_total",
    help: "Schedule fires this replica claimed, by task type and outcome (succeeded, failed, skipped)",
    labelNames: ["task_type", "outcome"],
    registers: [this.registry],
  });
  readonly scheduleClaimsLost = new Counter({
    name: "lattice_schedule_claims_lost_total",
    help: "Schedule fires this replica was due for that a peer claimed first, by task type",
    labelNames: ["task_type"],
    registers: [this.registry],
  });
  readonly affinityMisses = new Counter({
    name: "lattice_affinity_misses_total",
    help: "Requests answered affinity_miss: a peer runs the thread",
    registers: [this.registry],
  });
  readonly roomEventsIngested = new Counter({
    name: "lattice_room_events_ingested_total",
    help: "Peers' room events this replica's poller handed to its room broker, by outcome (delivered, duplicate, no_subscribers, malformed)",
    labelNames: ["outcome"],
    registers: [this.registry],
  });
  readonly tenantRefusals = new Counter({
    name: "lattice_tenant_refusals_total",
    help: "Requests refused because their tenant had too much under way, by tenant and reason (queue_full, too_many_streams)",
    labelNames: ["tenant", "reason"],
    registers: [this.registry],
  });
  readonly sseSubscribers = new Gauge({
    name: "lattice_sse_subscribers",
    help: "Server-sent event streams open on this replica",
    registers: [this.registry],
  });
  readonly replicaRole = new Gauge({
    name: "lattice_replica_role",
    help: "1 for this replica's role (AXIOM_ROLE: all, api or worker)",
    labelNames: ["role"],
    registers: [this.registry],
  });
  readonly httpRequestDuration = new Histogram({
    name: "lattice_http_request_duration_seconds",
    help: "HTTP requests by method, route pattern and status code",
    labelNames: ["method", "route", "status_code"],
    buckets: HTTP_DURATION_BUCKETS_S,
    registers: [this.registry],
  });

  /** What core and agent report to, turned into the counters above. */
  readonly observer: LatticeObserver = {
    runFinished: ({ status, durationMs }) => {
      this.runs.inc({ status });
      this.runDuration.observe({ status }, durationMs / 1000);
    },
    runHandedOver: ({ reason }) => this.runHandOvers.inc({ reason }),
    runFirstChunk: ({ delayMs }) => this.runFirstChunk.observe(delayMs / 1000),
    queueClaimed: () => this.queueClaims.inc(),
    queueReclaimed: ({ count }) => this.queueReclaims.inc(count),
    outboxEventPassed: ({ outcome }) => this.outboxDeliveries.inc({ outcome }),
    scheduleFired: ({ taskType, outcome }) => this.scheduleFires.inc({ task_type: taskType, outcome }),
    scheduleClaimLost: ({ taskType }) => this.scheduleClaimsLost.inc({ task_type: taskType }),
  };

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: "lattice_" });
    // Every outcome series exists from the start, so rate() and alerts see a 0 rather than nothing.
    for (const status of ["success", "error", "interrupted", "aborted"]) {
      this.runs.inc({ status }, 0);
    }
    for (const outcome of ["delivered", "failed", "skipped_own", "ignored"]) this.outboxDeliveries.inc({ outcome }, 0);
  }
}
