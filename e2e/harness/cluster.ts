import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { afterEach, onTestFailed } from "vitest";
import { Replica, type ReplicaOptions, startReplicas } from "./replica";

/**
 * Per-test bookkeeping for scenarios: a fresh database, the replicas started on it, their logs
 * printed when the test fails, and everything stopped afterwards even when it failed.
 */
export function useCluster() {
  const replicas: Replica[] = [];
  let database: TestDatabase | undefined;

  afterEach(async () => {
    await Promise.all(replicas.splice(0).map((replica) => replica.stop("SIGKILL")));
    await database?.drop();
    database = undefined;
  });

  const printLogsOnFailure = () =>
    onTestFailed(() => {
      for (const replica of replicas) console.error(`----- logs of ${replica.replicaId} (pid ${replica.pid}) -----\n${replica.logs}`);
    });

  return {
    async database(): Promise<TestDatabase> {
      database ??= await createTestDatabase("lattice_e2e");
      return database;
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
