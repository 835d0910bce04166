import { createTestDatabase, leaseStoreContract, type TestDatabase } from "@axiom-lattice/testing";
import { afterAll } from "vitest";
import { PostgreSQLLeaseStore } from "../src";

let database: TestDatabase | undefined;
let store: PostgreSQLLeaseStore | undefined;

leaseStoreContract("PostgreSQL", async () => {
  database = await createTestDatabase();
  store = new PostgreSQLLeaseStore({ poolConfig: database.url });
  await store.initialize();
  return store;
});

afterAll(async () => {
  await store?.dispose();
  await database?.drop();
});
