import { assistantStoreContract, createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { afterAll } from "vitest";
import { PostgreSQLAssistantStore } from "../src";

let database: TestDatabase | undefined;
let store: PostgreSQLAssistantStore | undefined;

assistantStoreContract("PostgreSQL", async () => {
  database = await createTestDatabase("lattice_assistants");
  store = new PostgreSQLAssistantStore({ poolConfig: database.url });
  await store.initialize();
  return store;
});

afterAll(async () => {
  await store?.dispose();
  await database?.drop();
});
