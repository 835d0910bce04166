import { createTestDatabase, itemStoreContract, type TestDatabase } from "@axiom-lattice/testing";
import { afterAll } from "vitest";
import { Pool, PostgreSQLItemStore } from "../src";

let database: TestDatabase | undefined;
let stores: PostgreSQLItemStore[] = [];
let admin: Pool | undefined;

itemStoreContract("PostgreSQL", {
  // Each store on a pool of its own: racing puts and sweeps come from separate connections, as from replicas.
  makeStores: async (count) => {
    database = await createTestDatabase("lattice_store_items");
    admin = new Pool({ connectionString: database.url, max: 1 });
    stores = Array.from({ length: count }, () => new PostgreSQLItemStore({ poolConfig: { connectionString: database!.url, max: 3 } }));
    await stores[0]!.initialize();
    await Promise.all(stores.map((store) => store.initialize()));
    return stores;
  },
  age: async (ms) => {
    await admin!.query(
      `UPDATE lattice_store_items
          SET expires_at = expires_at - $1 * interval '1 millisecond',
              created_at = created_at - $1 * interval '1 millisecond',
              updated_at = updated_at - $1 * interval '1 millisecond'`,
      [ms],
    );
  },
});

afterAll(async () => {
  await Promise.all(stores.map((store) => store.dispose()));
  await admin?.end();
  await database?.drop();
});
