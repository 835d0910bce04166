// The stores behind PgBouncer in transaction mode (1.18: no prepared statements, no session
// between transactions), LISTEN and migrations on the direct connection. Two server connections
// for four-connection pools: a statement prepared on one server session would be sought on the
// other, or prepared twice, so any named statement fails here.
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import {
  PgBouncer,
  createTestDatabase,
  eventually,
  findPgBouncer,
  leaseStoreContract,
  messageQueueStoreContract,
  outboxStoreContract,
  type TestDatabase,
} from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { PostgreSQLLeaseStore, PostgreSQLOutboxStore, PostgreSQLMessageQueueStore, createPostgreSQLStores, type PgStoreOptions } from "../src";

// Outside CI a machine without pgbouncer skips this file (scripts/test.sh installs it in CI only).
const pgBouncerMissing = findPgBouncer() === undefined && process.env.CI !== "true";
if (pgBouncerMissing) console.warn("SKIPPED: the pooler tests need pgbouncer, which is not installed (e.g. `apt-get install pgbouncer`); CI installs it");

let setup: Promise<{ database: TestDatabase; bouncer: PgBouncer }> | undefined;
const opened: { dispose(): Promise<void> }[] = [];

/** One database and one pgbouncer for the file, started on first use. */
function behindPgBouncer() {
  setup ??= (async () => {
    const database = await createTestDatabase("lattice_pooler");
    return { database, bouncer: await PgBouncer.start({ databaseUrl: database.url, poolSize: 2 }) };
  })();
  return setup;
}

/** A store's options in pooled mode: its own pool through pgbouncer, LISTEN and migrations direct. */
async function pooled(): Promise<PgStoreOptions> {
  const { database, bouncer } = await behindPgBouncer();
  return { poolConfig: { connectionString: bouncer.url, max: 4 }, directConnectionString: database.url };
}

async function open<T extends { initialize(): Promise<void>; dispose(): Promise<void> }>(store: T): Promise<T> {
  opened.push(store);
  await store.initialize();
  return store;
}

afterAll(async () => {
  await Promise.all(opened.map((store) => store.dispose()));
  const started = await setup;
  await started?.bouncer.stop();
  await started?.database.drop();
});

describe.skipIf(pgBouncerMissing)("behind PgBouncer in transaction mode", { timeout: 30_000 }, () => {
  describe("createPostgreSQLStores", () => {
    it("migrates on the direct connection, releasing its session lock, and every store and the checkpointer work through the pooler", async () => {
      const { database, bouncer } = await behindPgBouncer();
      const configs = await Promise.all([1, 2].map(() => createPostgreSQLStores(bouncer.url, { poolConfig: { max: 4 }, directConnectionString: database.url })));
      opened.push(...configs);
      const [a, b] = configs;
      const direct = new Pool({ connectionString: database.url, max: 1 });
      try {
        // Through a pooler, a session lock left behind would stay held by an idle server connection.
        const { rows } = await direct.query(
          "SELECT count(*)::int AS held FROM pg_locks JOIN pg_database d ON d.oid = pg_locks.database WHERE locktype = 'advisory' AND d.datname = current_database()",
        );
        expect(rows[0].held).toBe(0);
      } finally {
        await direct.end();
      }

      // A thread's data, then its checkpoint written (a transaction of upserts) and read back.
      await a.assistants.createAssistant("tenant", { id: "a", name: "A", model: { provider: "scripted" } });
      await a.threads.createThread("tenant", { id: "t", assistantId: "a" });
      expect(await b.threads.getThread("tenant", "t")).toMatchObject({ id: "t" });
      const config = { configurable: { thread_id: "t", checkpoint_ns: "" } };
      const checkpoint = { ...emptyCheckpoint(), channel_values: { messages: ["hi"] }, channel_versions: { messages: 1 } };
      await a.checkpoint.put(config, checkpoint, { source: "input", step: -1, parents: {} }, { messages: 1 });
      expect((await b.checkpoint.getTuple(config))?.checkpoint).toMatchObject({ id: checkpoint.id, channel_values: { messages: ["hi"] } });

      // A wake-up sent through the pooler reaches the other replica's LISTEN connection (direct).
      const woken: string[] = [];
      const unsubscribe = b.queueWakeup.subscribe((scope) => woken.push(scope.threadId));
      try {
        await eventually("b's wake-up connection to listen and hear a", async () => {
          await a.queueWakeup.notify({ tenantId: "tenant", assistantId: "a", threadId: "t" });
          return woken.includes("t");
        });
      } finally {
        unsubscribe();
      }
    });
  });

  leaseStoreContract("PostgreSQL behind PgBouncer", async () => open(new PostgreSQLLeaseStore(await pooled())));

  messageQueueStoreContract("PostgreSQL behind PgBouncer", {
    open: async (count, options) => {
      const base = await pooled();
      return Promise.all(Array.from({ length: count }, () => open(new PostgreSQLMessageQueueStore({ ...base, capacity: options?.capacity }))));
    },
  });

  let outboxAdmin: Pool | undefined;
  outboxStoreContract("PostgreSQL behind PgBouncer", {
    makeStore: async () => {
      const { database } = await behindPgBouncer();
      outboxAdmin = new Pool({ connectionString: database.url, max: 1 });
      opened.push({ dispose: () => outboxAdmin!.end() });
      return open(new PostgreSQLOutboxStore(await pooled()));
    },
    ageEvents: async (ms) => {
      await outboxAdmin!.query("UPDATE lattice_outbox SET created_at = created_at - $1 * interval '1 millisecond'", [ms]);
    },
  });
});
