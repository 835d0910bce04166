import { type QueueWakeup, registerStoreLattice } from "@axiom-lattice/core";
import { allMigrations, createPgStoreConfig } from "@axiom-lattice/pg-stores";
import type { ReadinessCheck } from "../routes/health";

/** The stores a gateway runs on, registered in the store registry so every component sees the same. */
export interface GatewayStores {
  kind: "memory" | "postgres";
  readiness: ReadinessCheck[];
  /** Cross-replica queue wake-ups (PostgreSQL NOTIFY); in one process the runtime's own suffice. */
  queueWakeup?: QueueWakeup;
  dispose(): Promise<void>;
}

/**
 * PostgreSQL stores on one pool when `databaseUrl` is set (migrated and with LangGraph's checkpoint
 * tables set up before this returns), the in-memory defaults otherwise.
 */
export async function createGatewayStores(databaseUrl: string | undefined): Promise<GatewayStores> {
  if (!databaseUrl) return { kind: "memory", readiness: [], dispose: async () => {} };

  const pg = await createPgStoreConfig(databaseUrl, { poolConfig: { application_name: "lattice-gateway" } });
  registerStoreLattice("default", "lease", pg.lease);
  registerStoreLattice("default", "outbox", pg.outbox);
  registerStoreLattice("default", "threadMessageQueue", pg.threadMessageQueue);
  registerStoreLattice("default", "thread", pg.thread);
  registerStoreLattice("default", "assistant", pg.assistant);
  registerStoreLattice("default", "schedule", pg.schedule);
  registerStoreLattice("default", "checkpoint", pg.checkpoint);

  const readiness: ReadinessCheck[] = [
    {
      name: "database",
      check: async () => {
        const { rows } = await pg.pool.query<{ applied: number }>(
          "SELECT count(*)::int AS applied FROM lattice_schema_migrations WHERE version = ANY($1::int[])",
          [allMigrations.map((migration) => migration.version)],
        );
        if (rows[0].applied !== allMigrations.length) {
          throw new Error(`${allMigrations.length - rows[0].applied} migration(s) not applied`);
        }
      },
    },
  ];
  return {
    kind: "postgres",
    readiness,
    queueWakeup: pg.queueWakeup,
    dispose: () => pg.dispose(),
  };
}
