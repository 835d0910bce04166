import type { AgentInstanceManager } from "@axiom-lattice/agent";
import { Gauge } from "prom-client";
import type { TenantStreams } from "../http/tenantStreams";
import type { TenantSubmissions } from "../http/tenantSubmissions";
import type { GatewayMetrics } from "./gatewayMetrics";

export interface TenantGaugedState {
  agents: Pick<AgentInstanceManager, "tenantRunStats">;
  streams: Pick<TenantStreams, "byTenant">;
  submissions: Pick<TenantSubmissions, "byTenant">;
}

/** A gauge labelled by tenant, set afresh at each scrape: a tenant with nothing under way has no series. */
function tenantGauge(metrics: GatewayMetrics, name: string, help: string, read: () => Iterable<[string, number]>): void {
  new Gauge({
    name,
    help,
    labelNames: ["tenant"],
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const [tenant, value] of read()) this.set({ tenant }, value);
    },
  });
}

/** What each tenant holds on this replica (AXIOM_TENANT_MAX_CONCURRENT_RUNS, AXIOM_TENANT_MAX_STREAMS, AXIOM_TENANT_MAX_RUN_SUBMISSIONS). */
export function registerTenantGauges(metrics: GatewayMetrics, { agents, streams, submissions }: TenantGaugedState): void {
  const runs = (field: "running" | "waiting") => () => [...agents.tenantRunStats()].map(([tenant, stats]): [string, number] => [tenant, stats[field]]);
  tenantGauge(metrics, "lattice_tenant_runs_active_threads", "Threads this replica is running now, by tenant", runs("running"));
  tenantGauge(metrics, "lattice_tenant_runs_waiting_threads", "Threads waiting for a run slot on this replica, by tenant", runs("waiting"));
  tenantGauge(metrics, "lattice_tenant_streams_open", "Streams open on this replica, by tenant", () => streams.byTenant());
  const submitting = (field: "underWay" | "waiting") => () => [...submissions.byTenant()].map(([tenant, counts]): [string, number] => [tenant, counts[field]]);
  tenantGauge(metrics, "lattice_tenant_run_submissions", "Run submissions (lookups and queueing) under way on this replica, by tenant", submitting("underWay"));
  tenantGauge(metrics, "lattice_tenant_run_submissions_waiting", "Run submissions waiting for a place on this replica, by tenant", submitting("waiting"));
}
