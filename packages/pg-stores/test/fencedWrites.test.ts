import { type TestDatabase, createTestDatabase, fencedWritesContract } from "@axiom-lattice/testing";
import { afterAll } from "vitest";
import { type PgStoreConfig, createPgStoreConfig } from "../src";

let database: TestDatabase | undefined;
const opened: PgStoreConfig[] = [];

afterAll(async () => {
  await Promise.all(opened.map((config) => config.dispose()));
  await database?.drop();
});

fencedWritesContract("PostgreSQL", {
  open: async (count) => {
    database = await createTestDatabase("lattice_fenced_writes");
    const url = database.url;
    // Migrated once, then one pool per replica: each replica's writes race the others' over connections of their own.
    for (let n = 0; n < count; n += 1) opened.push(await createPgStoreConfig(url, { poolConfig: { max: 4 } }));
    return opened.map((config) => ({
      leases: config.lease,
      queue: config.threadMessageQueue,
      runEvents: config.runEvents,
      items: config.item,
      tasks: config.task,
      checkpoints: config.checkpoint,
    }));
  },
});
