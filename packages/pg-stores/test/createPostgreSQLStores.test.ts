import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { allMigrations, createPostgreSQLStores, type PostgreSQLStores } from "../src";

let database: TestDatabase;
let configs: PostgreSQLStores[];

beforeEach(async () => {
  database = await createTestDatabase("lattice_config");
  configs = [];
});

afterEach(async () => {
  await Promise.all(configs.map((config) => config.dispose()));
  await database.drop();
});

const CHECKPOINT_TABLES = ["checkpoint_blobs", "checkpoint_migrations", "checkpoint_writes", "checkpoints"];

describe("createPostgreSQLStores", () => {
  it("lets replicas starting together on an empty database all succeed, creating every table once", async () => {
    configs = await Promise.all([1, 2, 3].map(() => createPostgreSQLStores(database.url, { poolConfig: { max: 4 } })));
    const inspect = new Pool({ connectionString: database.url, max: 1 });
    try {
      const tables = await inspect.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'checkpoint%' ORDER BY tablename",
      );
      expect(tables.rows.map((row) => row.tablename)).toEqual(CHECKPOINT_TABLES);
      const checkpointMigrations = await inspect.query<{ v: number }>("SELECT v FROM checkpoint_migrations ORDER BY v");
      const versions = checkpointMigrations.rows.map((row) => row.v);
      expect(versions.length).toBeGreaterThan(0);
      expect(versions).toEqual(versions.map((_, n) => n));
      const ledger = await inspect.query<{ version: number }>("SELECT version FROM lattice_schema_migrations ORDER BY version");
      expect(ledger.rows.map((row) => row.version)).toEqual(allMigrations.map((migration) => migration.version));
    } finally {
      await inspect.end();
    }
  });

  it("builds every store and the checkpointer on one pool", async () => {
    const config = await createPostgreSQLStores(database.url, { queueCapacity: 1 });
    configs.push(config);
    for (const store of [config.lease, config.outbox, config.queue, config.schedules, config.threads, config.langGraph, config.assistants, config.runTargets, config.projects, config.rooms, config.roomMessages, config.queueWakeup]) {
      expect((store as unknown as { pool: Pool }).pool).toBe(config.pool);
    }
    expect(config.checkpoint["pool"]).toBe(config.pool);

    expect(await config.lease.tryAcquire("config-test", "me#1", 1_000)).toBe(true);
    await config.queue.addMessage({ threadId: "t", scope: {}, content: "hi" });
    await expect(config.queue.addMessage({ threadId: "t", scope: {}, content: "over" })).rejects.toMatchObject({ code: "QUEUE_FULL" });
    await config.assistants.createAssistant("tenant", { id: "a", name: "A", model: { provider: "scripted" } });
    await config.threads.createThread("tenant", { id: "t", assistantId: "a" });
    expect((await config.langGraph.searchThreads("tenant")).map((thread) => thread.id)).toEqual(["t"]);
    expect(await config.runTargets.findRunTarget("tenant", "a", "t")).toMatchObject({ assistantFound: true, thread: { id: "t" } });
    await config.projects.createProject("tenant", { id: "p", name: "P" });
    expect(await config.projects.addBot("tenant", "p", "a")).toMatchObject({ projectId: "p", assistantId: "a" });
    expect(await config.rooms.createRoom("tenant", "p", { id: "r", name: "R" })).toMatchObject({ projectId: "p", id: "r" });
    expect(await config.roomMessages.appendMessage({ tenantId: "tenant", projectId: "p", roomId: "r" }, { authorType: "user", authorId: "u", content: "hi" })).toMatchObject({ created: true });
    expect(await config.schedules.countTasks()).toBe(0);
    expect(await config.checkpoint.getTuple({ configurable: { thread_id: "t", checkpoint_ns: "" } })).toBeUndefined();
  });

  it("ends its pool on dispose, once however often it is called", async () => {
    const config = await createPostgreSQLStores(database.url);
    await Promise.all([config.dispose(), config.dispose()]);
    expect(config.pool.ended).toBe(true);
  });

  it("ends its pool when the database cannot be reached", async () => {
    const url = new URL(database.url);
    url.pathname = "/lattice_no_such_database";
    await expect(createPostgreSQLStores(url.toString())).rejects.toThrow(/does not exist/);
  });
});
