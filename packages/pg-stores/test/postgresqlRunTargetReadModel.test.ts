import { runTargetReadModelContract } from "@axiom-lattice/testing";
import { afterAll } from "vitest";
import { PostgreSQLAssistantStore, PostgreSQLMessageQueueStore, PostgreSQLRunTargetReadModel, PostgreSQLThreadStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

let writers: [PostgreSQLAssistantStore, PostgreSQLThreadStore, PostgreSQLMessageQueueStore] | undefined;
const openReadModel = storeOnTestDatabase((databaseUrl) => {
  // The stores that write what it reads, and the queue whose adds judge it, on pools of their own over the same database.
  writers = [
    new PostgreSQLAssistantStore({ poolConfig: databaseUrl }),
    new PostgreSQLThreadStore({ poolConfig: databaseUrl }),
    new PostgreSQLMessageQueueStore({ poolConfig: databaseUrl }),
  ];
  return new PostgreSQLRunTargetReadModel({ poolConfig: databaseUrl });
}, "lattice_run_targets");

runTargetReadModelContract("PostgreSQL", {
  async open() {
    const readModel = await openReadModel();
    const [assistants, threads, queue] = writers!;
    await Promise.all(writers!.map((writer) => writer.initialize()));
    return { readModel, assistants, threads, queue };
  },
});

// Registered after storeOnTestDatabase's afterAll, so it runs first (last registered, first run): the writers close before the database goes.
afterAll(() => Promise.all((writers ?? []).map((writer) => writer.dispose())));
