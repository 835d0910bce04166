import { type Logger, type QueueWakeup, type SecretKeyring, createInMemoryStores } from "@axiom-lattice/core";
import { allMigrations, countMissingMigrations, createPostgreSQLStores, resealStoredSecrets } from "@axiom-lattice/pg-stores";
import type { Stores, UnitOfWork } from "@axiom-lattice/protocols";
import { InMemoryCheckpointSaver } from "@axiom-lattice/agent";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { DatabaseSettings } from "../config";
import { READINESS_TIMEOUT_MS } from "../defaults";
import type { PoolCounts } from "../metrics/poolGauges";

/** A check `/ready` runs; it throws (or rejects) when the dependency is not usable. */
export type ReadinessCheck = { name: string; check: () => Promise<void> };

/**
 * The stores one gateway runs on: its own instances, handed to every component that needs them.
 * `inTransaction` commits task writes with the outbox events announcing them.
 */
export interface GatewayStores extends Stores, UnitOfWork {
  kind: "memory" | "postgres";
  /** PostgreSQL only: the migrations this process applied (none when a peer had) and the schema's version. */
  migrations?: { applied: number[]; schemaVersion: number };
  /** LangGraph's checkpointer: where conversations live. */
  checkpoint: BaseCheckpointSaver;
  /** Cross-replica queue wake-ups (PostgreSQL NOTIFY); in one process the runtime's own suffice. */
  queueWakeup?: QueueWakeup;
  readiness: ReadinessCheck[];
  /** PostgreSQL only: the shared pool's counts (`/metrics`). */
  pool?: PoolCounts;
  dispose(): Promise<void>;
}

/**
 * PostgreSQL stores on one pool when `databaseUrl` is set (migrated and with LangGraph's checkpoint
 * tables set up before this returns), fresh in-memory stores otherwise. `keyring` seals stored secrets;
 * `database` sizes the pool and bounds its waits (pg-stores' defaults when absent), and its `listenUrl`
 * (direct) declares `databaseUrl` a transaction pooler: LISTEN and migrations use it.
 */
export async function createGatewayStores(
  databaseUrl: string | undefined,
  logger: Logger,
  keyring: SecretKeyring,
  database?: DatabaseSettings,
): Promise<GatewayStores> {
  if (!databaseUrl) {
    const { unitOfWork, ...stores } = createInMemoryStores({ logger });
    return {
      kind: "memory",
      inTransaction: (fn) => unitOfWork.inTransaction(fn),
      ...stores,
      // The lease store judges the fences of the checkpoint writes runs make under their thread-run leases.
      checkpoint: new InMemoryCheckpointSaver(stores.lease),
      readiness: [],
      dispose: async () => {},
    };
  }

  const poolConfig = database && {
    max: database.poolMax,
    connectionTimeoutMillis: database.connectTimeoutMs,
    statement_timeout: database.statementTimeoutMs,
    idleTimeoutMillis: database.idleTimeoutMs,
  };
  const pg = await createPostgreSQLStores(databaseUrl, {
    poolConfig: { ...poolConfig, application_name: "lattice-gateway" },
    directConnectionString: database?.listenUrl,
    logger,
    keyring,
  });
  // Replicas starting together take turns on the migration lock: the first applies, the others find
  // nothing left to do. Logged, so an operator (and the e2e suite) sees which replica did the work.
  logger.info({ phase: "startup", appliedMigrations: pg.appliedMigrations }, "database schema ready");
  // Secrets stored in plain text by an older version are sealed now, without operator action. Only
  // plain text: that opens nothing, so it cannot fail on a key version this replica does not know
  // (replicas mid-rotation may start with different key lists), and moving sealed values to a new
  // key stays the operator's `keys:rotate`, run once every replica has the new key.
  try {
    const { kinds } = await resealStoredSecrets(pg.pool, { keyring, scope: "plainText" });
    const sealed = Object.fromEntries(Object.entries(kinds).filter(([, count]) => count.resealed > 0).map(([kind, count]) => [kind, count.resealed]));
    if (Object.keys(sealed).length > 0) logger.info({ phase: "startup", sealed }, "plain-text secrets sealed at rest");
  } catch (error) {
    await pg.dispose();
    throw error;
  }
  const migrationsApplied: ReadinessCheck = {
    name: "database",
    check: async () => {
      const missing = await countMissingMigrations(pg.pool, READINESS_TIMEOUT_MS);
      if (missing > 0) throw new Error(`${missing} migration(s) not applied`);
    },
  };
  const { pool, appliedMigrations, unitOfWork, dispose, ...stores } = pg;
  return {
    kind: "postgres",
    inTransaction: (fn) => unitOfWork.inTransaction(fn),
    migrations: { applied: appliedMigrations, schemaVersion: Math.max(...allMigrations.map((migration) => migration.version)) },
    ...stores,
    readiness: [migrationsApplied],
    pool,
    dispose,
  };
}
