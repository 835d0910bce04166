import { type TestDatabase, createTestDatabase, unitOfWorkContract } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll } from "vitest";
import { PostgreSQLOutboxStore, PostgreSQLTaskStore, PostgreSQLUnitOfWork } from "../src";

let database: TestDatabase | undefined;
const pools: Pool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await database?.drop();
});

unitOfWorkContract("PostgreSQL", async () => {
  database = await createTestDatabase("lattice_uow");
  // The writer's stores and the peer's, each on a pool of its own.
  const [writerPool, readerPool] = [new Pool({ connectionString: database.url }), new Pool({ connectionString: database.url })];
  pools.push(writerPool, readerPool);
  const tasks = new PostgreSQLTaskStore({ pool: writerPool });
  const outbox = new PostgreSQLOutboxStore({ pool: writerPool });
  await tasks.initialize();
  const reader = { tasks: new PostgreSQLTaskStore({ pool: readerPool, autoMigrate: false }), outbox: new PostgreSQLOutboxStore({ pool: readerPool, autoMigrate: false }) };
  return { unitOfWork: new PostgreSQLUnitOfWork({ pool: writerPool, tasks, outbox }), tasks, reader };
});
