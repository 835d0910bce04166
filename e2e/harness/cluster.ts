import { allMigrations, createPostgreSQLStores } from "@axiom-lattice/pg-stores";
import { createTestDatabase, migratedTemplate, type TestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterEach, onTestFailed } from "vitest";
import { Replica, type ReplicaOptions, startReplicas } from "./replica";

/** The migrated schema scenarios' databases are copied from, built once. */
const migratedSchema = migratedTemplate(allMigrations, async (url) => (await createPostgreSQLStores(url)).dispose());

/** A scenario's database, already migrated; scenarios of migrating itself (replicas' first start) take `"empty"`. */
export const createScenarioDatabase = (prefix: string, schema: "migrated" | "empty" = "migrated"): Promise<TestDatabase> =>
  createTestDatabase(prefix, schema === "migrated" ? migratedSchema : undefined);

/**
 * Per-test bookkeeping for scenarios: a fresh database, the replicas started on it, their logs
 * printed when the test fails, an operator's SQL pool on the database, and everything stopped
 * afterwards even when it failed.
 */
export function useCluster(schema: "migrated" | "empty" = "migrated") {
  let replicas: Replica[] = [];
  let logsOnFailure = false;
  let database: TestDatabase | undefined;
  let pool: Pool | undefined;

  afterEach(async () => {
    // A fresh list rather than emptying this one: onTestFailed hooks run after afterEach and print it.
    const stopping = replicas;
    replicas = [];
    logsOnFailure = false;
    await Promise.all(stopping.map((replica) => replica.stop("SIGKILL")));
    await pool?.end();
    pool = undefined;
    await database?.drop();
    database = undefined;
  });

  /** Once per test: every replica the test started, killed ones included. */
  const printLogsOnFailure = () => {
    if (logsOnFailure) return;
    logsOnFailure = true;
    const started = replicas;
    onTestFailed(() => {
      for (const replica of started) console.error(`----- logs of ${replica.replicaId} (pid ${replica.pid}) -----\n${replica.logs}`);
    });
  };

  return {
    async database(): Promise<TestDatabase> {
      database ??= await createScenarioDatabase("lattice_e2e", schema);
      return database;
    },
    /** SQL on the cluster's database, as an operator would run it. */
    async sql(): Promise<Pool> {
      pool ??= new Pool({ connectionString: (await this.database()).url, max: 4 });
      return pool;
    },
    async start(count: number, options: Omit<ReplicaOptions, "replicaId" | "databaseUrl"> & { prefix?: string } = {}) {
      printLogsOnFailure();
      const started = await startReplicas(count, { ...options, databaseUrl: (await this.database()).url });
      replicas.push(...started);
      return started;
    },
    add(options: ReplicaOptions): Replica {
      printLogsOnFailure();
      const replica = new Replica(options);
      replicas.push(replica);
      return replica;
    },
  };
}
