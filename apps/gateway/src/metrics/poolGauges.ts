import { Gauge } from "prom-client";
import type { GatewayMetrics } from "./gatewayMetrics";

/** What a pg pool counts of its connections (pg's `Pool` has these). */
export interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

/**
 * Gauges of the database pool, read when `/metrics` is scraped: how much of `DATABASE_POOL_MAX` is in
 * use, and how many queries wait for a connection (a pool too small, or a database that is gone).
 */
export function registerPoolGauges(metrics: GatewayMetrics, pool: PoolCounts): void {
  const registers = [metrics.registry];
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  gauge("lattice_db_pool_connections", "Connections the database pool holds (in use and idle), at most DATABASE_POOL_MAX", () => pool.totalCount);
  gauge("lattice_db_pool_idle_connections", "Connections of the database pool waiting for a query", () => pool.idleCount);
  gauge("lattice_db_pool_waiting_clients", "Queries waiting for a connection of the database pool", () => pool.waitingCount);
}
