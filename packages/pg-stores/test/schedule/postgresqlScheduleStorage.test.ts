import { createTestDatabase, scheduleStorageContract, type TestDatabase } from "@axiom-lattice/testing";
import { afterAll } from "vitest";
import { PostgreSQLScheduleStorage } from "../../src";

let database: TestDatabase | undefined;
let store: PostgreSQLScheduleStorage | undefined;

scheduleStorageContract("PostgreSQL", async () => {
  database = await createTestDatabase();
  store = new PostgreSQLScheduleStorage({ poolConfig: database.url });
  await store.initialize();
  return store;
});

afterAll(async () => {
  await store?.dispose();
  await database?.drop();
});
