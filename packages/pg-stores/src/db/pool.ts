import type { Pool, PoolConfig } from "pg";
import { type PoolerOptions, createStorePool } from "./pooler";

/** How every PostgreSQL store is given its connection (`directConnectionString`: behind a pooler). */
export interface PgStoreOptions extends PoolerOptions {
  /** An existing pool, shared with other stores; the store never ends it. */
  pool?: Pool;
  /** A connection string or pool config; the store creates a pool and ends it in `dispose()`. */
  poolConfig?: string | PoolConfig;
  /** Run pending migrations in `initialize()` (default true). */
  autoMigrate?: boolean;
}

export interface ResolvedPool {
  pool: Pool;
  ownsPool: boolean;
}

export function resolvePool(options: PgStoreOptions): ResolvedPool {
  if (options.pool) return { pool: options.pool, ownsPool: false };
  if (options.poolConfig === undefined) {
    throw new TypeError("A PostgreSQL store needs either `pool` or `poolConfig`");
  }
  const config = typeof options.poolConfig === "string" ? { connectionString: options.poolConfig } : options.poolConfig;
  return { pool: createStorePool(config, options), ownsPool: true };
}
