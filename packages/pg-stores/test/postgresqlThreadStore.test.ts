import { createTestDatabase, threadStoreContract, type TestDatabase } from "@axiom-lattice/testing";
import { afterAll } from "vitest";
import { PostgreSQLThreadStore } from "../src";

let database: TestDatabase | undefined;
let store: PostgreSQLThreadStore | undefined;

threadStoreContract("PostgreSQL", async () => {
  database = await createTestDatabase("lattice_threads");
  store = new PostgreSQLThreadStore({ poolConfig: database.url });
  await store.initialize();
  return store;
});

afterAll(async () => {
  await store?.dispose();
  await database?.drop();
});
