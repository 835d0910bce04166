import { PgBouncer, adminDatabaseUrl, findPgBouncer } from "@axiom-lattice/testing";
import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { type RunRecord, call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { ASSISTANT, createThreads, enqueueAcross, expectProcessedOnceInOrder, startLongRun } from "../harness/workloads";

// Outside CI a machine without pgbouncer skips this scenario (scripts/test.sh installs it in CI only).
const pgBouncerMissing = findPgBouncer() === undefined && process.env.CI !== "true";
if (pgBouncerMissing) console.warn("SKIPPED: scenario 21 needs pgbouncer, which is not installed (e.g. `apt-get install pgbouncer`); CI installs it");

const REPLICAS = 4;
/**
 * node-postgres's default pool size, which the gateway keeps, and each replica's two LISTEN connections
 * from the start (queue wake-ups, outbox; the third, run events, opens only when a replica follows a
 * peer's run, which this scenario's queued runs never make it do).
 */
const POOL_MAX = 10;
const LISTENERS = 2;
/** Server connections pgbouncer keeps for the whole cluster. */
const BOUNCER_POOL = 4;
/**
 * The application role's CONNECTION LIMIT, standing in for max_connections: every listener, the
 * pooler's connections, and one direct connection per replica starting together (the migrator's,
 * waiting on its lock). Directly, the same replicas would need a pool and two listeners each.
 */
const CONNECTION_LIMIT = REPLICAS * LISTENERS + BOUNCER_POOL + REPLICAS;
const THREADS = 12;
const MESSAGES_PER_THREAD = 4;

describe.skipIf(pgBouncerMissing)("scenario 21: replicas behind PgBouncer (transaction mode), beyond the connection limit", () => {
  // An empty database: the replicas, logging in as the role that owns it, create (and own) its tables.
  const cluster = useCluster("empty");
  const role = `lattice_pooler_${randomBytes(4).toString("hex")}`;
  let bouncer: PgBouncer | undefined;

  afterAll(async () => {
    await bouncer?.stop();
    // On the server's admin database: the cluster's own went after the test (asking the cluster for
    // SQL here would create a database nothing drops).
    const admin = new Client({ connectionString: adminDatabaseUrl() });
    await admin.connect();
    try {
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
    } finally {
      await admin.end();
    }
  });

  it(`runs ${REPLICAS} replicas, ${REPLICAS * (POOL_MAX + LISTENERS)} connections' worth directly, within a limit of ${CONNECTION_LIMIT}`, async () => {
    expect(REPLICAS * (POOL_MAX + LISTENERS)).toBeGreaterThan(CONNECTION_LIMIT);
    const admin = await cluster.sql();
    const database = await cluster.database();
    // Superusers are exempt from connection limits: the replicas log in as an ordinary role that owns the database.
    await admin.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT ${CONNECTION_LIMIT}`);
    await admin.query(`ALTER DATABASE "${database.name}" OWNER TO ${role}`);
    const direct = new URL(database.url);
    direct.username = role;
    bouncer = await PgBouncer.start({ databaseUrl: direct.toString(), poolSize: BOUNCER_POOL });

    let peak = 0;
    const sample = async () => {
      const { rows } = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1", [role]);
      peak = Math.max(peak, rows[0].n);
    };
    const sampler = setInterval(() => void sample().catch(() => undefined), 50);
    try {
      const replicas = await cluster.start(REPLICAS, { env: { DATABASE_URL: bouncer.url, DATABASE_LISTEN_URL: direct.toString() } });
      const urls = replicas.map((replica) => replica.url);
      const replicaIds = replicas.map((replica) => replica.replicaId);

      // Every replica's two LISTEN connections are direct sessions of the role, listening.
      await eventually(
        async () => {
          const { rows } = await admin.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND query LIKE 'LISTEN%'",
            [role],
          );
          return rows[0].n === REPLICAS * LISTENERS ? true : undefined;
        },
        10_000,
        `${REPLICAS * LISTENERS} LISTEN connections`,
      );

      // Runs on many threads, entering through every replica: each message answered once, in order.
      const threadIds = Array.from({ length: THREADS }, (_, i) => `pooled-${i}`);
      await createThreads(urls[0], [...threadIds, "held"]);
      await enqueueAcross(urls, threadIds, MESSAGES_PER_THREAD);
      const servedBy = await expectProcessedOnceInOrder(urls[0], threadIds, MESSAGES_PER_THREAD, replicaIds);
      expect(Object.keys(servedBy).length).toBeGreaterThan(1);

      // A message queued on one replica, for a thread another holds, runs once the holder's run ends.
      const holder = await startLongRun(urls[0], "held", "held-long", 1_000);
      const other = replicas.find((replica) => replica.replicaId !== holder)!;
      await expectOk(
        call(other.url, "POST", "/api/runs", { assistant_id: ASSISTANT, thread_id: "held", message: "after", message_id: "held-after", mode: "queue" }),
        202,
      );
      const runs = await eventually(async () => {
        const { runs } = await expectOk<{ runs: RunRecord[] }>(call(other.url, "GET", "/api/threads/held/runs"));
        return runs.length === 2 && runs.every((run) => run.finished_at) ? runs : undefined;
      });
      expect(runs.map((run) => [run.message_id, run.status]).sort()).toEqual([
        ["held-after", "success"],
        ["held-long", "success"],
      ]);
      await sample();
      console.log(
        `scenario 21: ${REPLICAS} replicas, peak ${peak} connections of the role (limit ${CONNECTION_LIMIT}; directly ${REPLICAS * (POOL_MAX + LISTENERS)}), runs per replica ${JSON.stringify(servedBy)}`,
      );
      expect(peak).toBeLessThanOrEqual(CONNECTION_LIMIT);
    } finally {
      clearInterval(sampler);
    }
  });
});
