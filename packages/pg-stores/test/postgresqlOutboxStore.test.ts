import { createTestDatabase, outboxStoreContract, type TestDatabase } from "@axiom-lattice/testing";
import { afterAll } from "vitest";
import { Pool, PostgreSQLOutboxStore } from "../src";

let database: TestDatabase | undefined;
let store: PostgreSQLOutboxStore | undefined;
let admin: Pool | undefined;

outboxStoreContract("PostgreSQL", {
  makeStore: async () => {
    database = await createTestDatabase();
    admin = new Pool({ connectionString: database.url, max: 1 });
    store = new PostgreSQLOutboxStore({ poolConfig: database.url });
    await store.initialize();
    return store;
  },
  ageEvents: async (ms) => {
    await admin!.query("UPDATE lattice_outbox SET created_at = created_at - $1 * interval '1 millisecond'", [ms]);
  },
});

afterAll(async () => {
  await store?.dispose();
  await admin?.end();
  await database?.drop();
});
