import { langGraphReadModelContract } from "@axiom-lattice/testing";
import { afterAll } from "vitest";
import { PostgreSQLLangGraphReadModel, PostgreSQLMessageQueueStore, PostgreSQLThreadStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

let writers: Array<PostgreSQLThreadStore | PostgreSQLMessageQueueStore> = [];
const openReadModel = storeOnTestDatabase((databaseUrl) => {
  // The stores that write what it reads, on pools of their own over the same database.
  writers = [new PostgreSQLThreadStore({ poolConfig: databaseUrl }), new PostgreSQLMessageQueueStore({ poolConfig: databaseUrl })];
  return new PostgreSQLLangGraphReadModel({ poolConfig: databaseUrl });
}, "lattice_langgraph_reads");

langGraphReadModelContract("PostgreSQL", {
  async open() {
    const readModel = await openReadModel();
    const [threads, queue] = writers as [PostgreSQLThreadStore, PostgreSQLMessageQueueStore];
    await Promise.all(writers.map((writer) => writer.initialize()));
    return { readModel, threads, queue };
  },
});

// Registered after storeOnTestDatabase's afterAll, so it runs first (last registered, first run): the writers close before the database goes.
afterAll(() => Promise.all(writers.map((writer) => writer.dispose())));
