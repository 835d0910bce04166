import { getLogger, type Logger } from "@axiom-lattice/core";
import { Pool, type PoolConfig } from "pg";
import { CONNECT_TIMEOUT_MS, IDLE_TIMEOUT_MS, POOL_MAX, QUERY_TIMEOUT_MARGIN_MS, STATEMENT_TIMEOUT_MS } from "../defaults";

/** How every PostgreSQL store is given its connection. */
export interface PgStoreOptions {
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
  return { pool: createPool(config), ownsPool: true };
}

/**
 * A pool with production defaults (see defaults.ts; `config` overrides any) whose connections never
 * take the process down: a connection that fails, idle or checked out, is logged and discarded, and
 * the next request opens a fresh one. (A pg client or pool emitting 'error' with no listener throws.)
 */
export function createPool(config: PoolConfig, logger: Logger = getLogger()): Pool {
  const statementTimeout = config.statement_timeout ?? STATEMENT_TIMEOUT_MS;
  const pool = new Pool({
    max: POOL_MAX,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
    statement_timeout: statementTimeout,
    query_timeout: statementTimeout ? statementTimeout + QUERY_TIMEOUT_MARGIN_MS : undefined,
    // Notice a silently dead peer on a connection that waits for an answer.
    keepAlive: true,
    ...config,
  });
  const log = logger.child({ phase: "pg_pool" });
  // A checked-out client has no listener of the pool's: its holder sees the failed query, this keeps
  // the event itself from crashing the process; the pool discards the client when it comes back.
  pool.on("connect", (client) => client.on("error", (error) => log.warn({ err: error }, "database connection lost; the pool replaces it")));
  // An idle client's failure: the pool has already discarded it, and the client's listener logged it.
  pool.on("error", () => undefined);
  return pool;
}
