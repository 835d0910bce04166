import type { Logger } from "@axiom-lattice/core";
import type { Pool, PoolConfig } from "pg";
import { CONNECT_TIMEOUT_MS, IDLE_IN_TRANSACTION_TIMEOUT_MS, IDLE_TIMEOUT_MS, POOL_MAX, QUERY_TIMEOUT_MARGIN_MS, STATEMENT_TIMEOUT_MS } from "../defaults";
import { type PoolerOptions, createStorePool } from "./pooler";

/** How every PostgreSQL store is given its connection (`directConnectionString`: behind a pooler). */
export interface PgStoreOptions extends PoolerOptions {
  /** An existing pool, shared with other stores; the store never ends it. */
  pool?: Pool;
  /** A connection string or pool config; the store creates a pool and ends it in `dispose()`. */
  poolConfig?: string | PoolConfig;
  /** Run pending migrations in `initialize()` (default true). */
  autoMigrate?: boolean;
  /** Where the store reports trouble (broken pooled connections, its LISTEN connection); default: a new `defaultLogger()`. */
  logger?: Logger;
}

export interface ResolvedPool {
  pool: Pool;
  ownsPool: boolean;
}

export function resolvePool(options: PgStoreOptions, logger: Logger): ResolvedPool {
  if (options.pool) return { pool: options.pool, ownsPool: false };
  if (options.poolConfig === undefined) {
    throw new TypeError("A PostgreSQL store needs either `pool` or `poolConfig`");
  }
  const config = typeof options.poolConfig === "string" ? { connectionString: options.poolConfig } : options.poolConfig;
  return { pool: createPool(config, options, logger), ownsPool: true };
}

/**
 * A pool with production defaults (see defaults.ts; `config` overrides any) whose connections never
 * take the process down: a connection that fails, idle or checked out, is logged and discarded, and
 * the next request opens a fresh one. (A pg client or pool emitting 'error' with no listener throws.)
 */
export function createPool(config: PoolConfig, pooler: PoolerOptions, logger: Logger): Pool {
  const statementTimeout = config.statement_timeout ?? STATEMENT_TIMEOUT_MS;
  const pool = createStorePool(
    {
      max: POOL_MAX,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      idleTimeoutMillis: IDLE_TIMEOUT_MS,
      query_timeout: statementTimeout ? statementTimeout + QUERY_TIMEOUT_MARGIN_MS : undefined,
      // Notice a silently dead peer on a connection that waits for an answer.
      keepAlive: true,
      ...config,
      // Behind a pooler the server-side timeouts cannot ride on the startup packet (PgBouncer 1.18
      // refuses parameters it does not know); the client-side query timeout still bounds each statement.
      statement_timeout: pooler.directConnectionString === undefined ? statementTimeout : undefined,
      idle_in_transaction_session_timeout:
        pooler.directConnectionString === undefined ? (config.idle_in_transaction_session_timeout ?? IDLE_IN_TRANSACTION_TIMEOUT_MS) : undefined,
    },
    pooler,
  );
  const log = logger.child({ phase: "pg_pool" });
  // A checked-out client has no listener of the pool's: its holder sees the failed query, this keeps
  // the event itself from crashing the process; the pool discards the client when it comes back.
  pool.on("connect", (client) => client.on("error", (error) => log.warn({ err: error }, "database connection lost; the pool replaces it")));
  // An idle client's failure: the pool has already discarded it, and the client's listener logged it.
  pool.on("error", () => undefined);
  return pool;
}
