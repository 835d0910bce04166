import { Client, type ClientConfig, Pool, type PoolConfig } from "pg";

/**
 * Pooled mode: the stores' pool reaches PostgreSQL through a transaction-mode pooler (PgBouncer),
 * where consecutive transactions of one client may run on different server sessions. Declared by
 * giving a direct connection (bypassing the pooler) for the work that needs a session of its own.
 */
export interface PoolerOptions {
  /**
   * A direct connection string, for LISTEN connections and migrations (a session advisory lock).
   * Setting it declares that the pool goes through a transaction pooler: statements are then sent
   * unnamed, since a statement prepared on one server session is unknown to the next.
   */
  directConnectionString?: string;
}

/**
 * A pg Client that never names a statement: a query config's `name` is dropped, so node-postgres
 * sends an unnamed Parse/Bind/Execute ending in one Sync, which a transaction pooler keeps on one
 * server session. Stores keep their named statements (a parse-and-plan saving on direct connections).
 */
export class UnnamedStatementClient extends Client {}

const namedQuery = Client.prototype.query as (...args: unknown[]) => unknown;
// Every overload of query passes its first argument here; streams (submittables) pass untouched.
UnnamedStatementClient.prototype.query = function query(this: Client, config: unknown, ...rest: unknown[]) {
  const unnamed = typeof config === "object" && config !== null && "name" in config && !("submit" in config) ? { ...config, name: undefined } : config;
  return namedQuery.call(this, unnamed, ...rest);
} as Client["query"];

/** The stores' pool: in pooled mode its clients send unnamed statements. */
export function createStorePool(config: PoolConfig, pooler: PoolerOptions = {}): Pool {
  return new Pool(pooler.directConnectionString === undefined ? config : { ...config, Client: UnnamedStatementClient });
}

/** Where a LISTEN connection goes: the direct connection in pooled mode (LISTEN needs a session), else the pool's. */
export function listenConnection(pool: Pool, pooler: PoolerOptions = {}): ClientConfig {
  return pooler.directConnectionString === undefined ? pool.options : { ...pool.options, connectionString: pooler.directConnectionString };
}

/**
 * Runs `fn` on a pool with real sessions: in pooled mode a short-lived pool of direct connections
 * (two: the migrator holds one under its session lock while LangGraph's setup takes another), else
 * the stores' pool itself.
 */
export async function withSessionPool<T>(pool: Pool, pooler: PoolerOptions, fn: (sessions: Pool) => Promise<T>): Promise<T> {
  if (pooler.directConnectionString === undefined) return fn(pool);
  const direct = new Pool({ ...pool.options, Client: undefined, connectionString: pooler.directConnectionString, max: 2 });
  try {
    return await fn(direct);
  } finally {
    await direct.end();
  }
}
