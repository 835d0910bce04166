// GET /api/cluster on PostgreSQL: replicas sharing a database see each other (presence), each
// other's leases and the maintenance leader; a replica that stops leaves the list, at once when it
// stops cleanly and once its presence lapses when it is killed.
import { acquireLease, type HeldLease, uniqueHolder } from "@axiom-lattice/core";
import { type TestDatabase, eventually } from "@axiom-lattice/testing";
import { execa } from "execa";
import type { FastifyInstance } from "fastify";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayContext } from "../src/context/gatewayContext";
import { clusterResponseSchema, type ClusterResponse } from "../src/routes/cluster";
import { version } from "../package.json";
import { type Family, parseExposition, valueOf } from "./prometheus";
import { buildTestGateway, createMigratedTestDatabase } from "./support";

const PRESENCE_INTERVAL_MS = 200;
const cli = resolve(__dirname, "../dist/cli.js");

interface Gateway {
  app: FastifyInstance;
  context: GatewayContext;
  cluster(): Promise<ClusterResponse>;
  scrape(): Promise<Map<string, Family>>;
  close(): Promise<void>;
}

let database: TestDatabase;
const opened: Gateway[] = [];

async function gateway(replicaId: string): Promise<Gateway> {
  const { app, context } = await buildTestGateway(
    { DATABASE_URL: database.url, AXIOM_REPLICA_ID: replicaId, AXIOM_PRESENCE_INTERVAL_MS: String(PRESENCE_INTERVAL_MS) },
    { started: true },
  );
  let closed: Promise<void> | undefined;
  const created: Gateway = {
    app,
    context,
    async cluster() {
      const response = await app.inject({ method: "GET", url: "/api/cluster" });
      expect(response.statusCode).toBe(200);
      // Every key of the answer, at any depth, is snake_case (it holds no free-form maps).
      expect(response.body.match(/"[a-z_]*[A-Z][A-Za-z_]*":/g)).toBeNull();
      return clusterResponseSchema.parse(response.json());
    },
    async scrape() {
      return parseExposition((await app.inject({ method: "GET", url: "/metrics" })).body);
    },
    close: () => (closed ??= app.close().then(() => context.close())),
  };
  opened.push(created);
  return created;
}

const replicaIds = (view: ClusterResponse) => view.replicas.map((replica) => replica.replica_id);

describe("GET /api/cluster (PostgreSQL, two gateways)", () => {
  let a: Gateway;
  let b: Gateway;
  beforeAll(async () => {
    database = await createMigratedTestDatabase("lattice_cluster");
    a = await gateway("gw-a");
    b = await gateway("gw-b");
  });
  afterAll(async () => {
    for (const each of opened) await each.close();
    await database?.drop();
  });

  it("lists both replicas on each, with version, start time, store mode, active runs and outbox position", async () => {
    // A replica is listed for three beats (600 ms here): on a loaded CI machine a stalled loop can drop it from the list until its next beat.
    for (const each of [a, b]) await eventually("both replicas listed", async () => replicaIds(await each.cluster()).join() === "gw-a,gw-b");
    for (const view of [await a.cluster(), await b.cluster()]) {
      expect(replicaIds(view)).toEqual(["gw-a", "gw-b"]);
      for (const replica of view.replicas) {
        expect(replica).toMatchObject({ version, store_mode: "postgresql", role: "all", active_runs: 0 });
        expect(Date.parse(replica.started_at)).toBeLessThanOrEqual(Date.parse(replica.last_seen_at));
        expect(Date.parse(replica.expires_at)).toBeGreaterThan(Date.parse(replica.last_seen_at));
        expect(replica.outbox.lag_seconds).toBeGreaterThanOrEqual(0);
      }
    }
    // An event appended by one replica: every poller passes it, and each says so at its next beat.
    await a.context.schedules.scheduleOnce({ taskType: "agent-message", delayMs: 3_600_000, payload: { assistant_id: "x", thread_id: "y", message: "later" } });
    await eventually("both replicas report the head cursor", async () => {
      const view = await b.cluster();
      return view.outbox.head_cursor !== null && view.replicas.every((replica) => replica.outbox.cursor === view.outbox.head_cursor);
    });
  });

  it("shows a peer's active runs, its leases counted by kind, and the maintenance leader, never a lease key", async () => {
    const headers = { "content-type": "application/json" };
    const post = (url: string, body: unknown) => a.app.inject({ method: "POST", url, headers, payload: JSON.stringify(body) });
    expect((await post("/api/assistants", { id: "sleeper", name: "Sleeper" })).statusCode).toBe(201);
    expect((await post("/api/threads", { thread_id: "secret-thread", assistant_id: "sleeper" })).statusCode).toBe(201);
    expect((await post("/api/runs", { assistant_id: "sleeper", thread_id: "secret-thread", message: "/sleep 60000", mode: "queue" })).statusCode).toBe(202);

    // The maintenance loop holds the leader lease when it runs; otherwise gw-a takes it here.
    let taken: HeldLease | null = null;
    if (!(await a.context.stores.lease.get("leader:maintenance"))) {
      taken = await acquireLease(a.context.stores.lease, "leader:maintenance", uniqueHolder("gw-a"), 60_000, { logger: a.context.logger });
    }
    const holder = (await a.context.stores.lease.get("leader:maintenance"))!.holder;
    try {
      await eventually("gw-b sees gw-a running the thread", async () => {
        const view = await b.cluster();
        return view.replicas.find((replica) => replica.replica_id === "gw-a")?.active_runs === 1;
      });
      const response = await b.app.inject({ method: "GET", url: "/api/cluster" });
      const view = clusterResponseSchema.parse(response.json());
      expect(view.maintenance_leader).toBe(holder.slice(0, holder.lastIndexOf("#")));
      expect(view.leases.leaders).toContainEqual(expect.objectContaining({ name: "maintenance", replica_id: view.maintenance_leader }));
      expect(view.leases.held).toContainEqual({ kind: "thread-run", replica_id: "gw-a", count: 1 });
      expect(view.leases.truncated).toBe(false);
      // Lease keys name tenants and threads: none reaches the answer.
      expect(response.body).not.toContain("secret-thread");
      expect(response.body).not.toContain("thread-run:");
    } finally {
      await taken?.release();
      await post("/api/runs/abort", { assistant_id: "sleeper", thread_id: "secret-thread" });
    }
  });

  it("counts a fire once across the replicas, and the peer's claim of it as lost", async () => {
    const fires = async (gw: Gateway, labels: Record<string, string>) => valueOf(await gw.scrape(), "lattice_schedule_fires_total", labels);
    const lost = async (gw: Gateway) => valueOf(await gw.scrape(), "lattice_schedule_claims_lost_total", { task_type: "cluster-once" });
    for (const gw of [a, b]) gw.context.schedules.registerHandler("cluster-once", () => {});
    await a.context.schedules.scheduleOnce({ taskType: "cluster-once", delayMs: 3_000 });
    // gw-b would arm it when the outbox tells it, but a loaded machine may deliver that after the fire
    // settled (then gw-b arms nothing and loses nothing): arm it now, so both timers race for the claim.
    await b.context.schedules.armActive();
    const labels = { task_type: "cluster-once", outcome: "succeeded" };
    // The loser may be refused before the winner has settled the fire: wait for both counts.
    await eventually("the fire ran and the peer's claim was refused", async () => (await lost(a)) + (await lost(b)) === 1);
    await eventually("the winner settled the fire", async () => (await fires(a, labels)) + (await fires(b, labels)) === 1);
    expect((await lost(a)) + (await lost(b))).toBe(1);
  });

  it("drops a replica that stops cleanly at once", async () => {
    const c = await gateway("gw-c");
    expect(replicaIds(await b.cluster())).toContain("gw-c");
    await c.close();
    expect(replicaIds(await b.cluster())).not.toContain("gw-c");
  });

  it("drops a killed replica once its presence lapses, with no restart anywhere", async () => {
    const child = execa("node", [cli], {
      env: {
        PORT: "0",
        LOG_LEVEL: "warn",
        DATABASE_URL: database.url,
        AXIOM_REPLICA_ID: "gw-killed",
        AXIOM_PRESENCE_INTERVAL_MS: String(PRESENCE_INTERVAL_MS),
      },
      reject: false,
      timeout: 60_000,
    });
    try {
      await eventually("gw-b lists the new replica", async () => replicaIds(await b.cluster()).includes("gw-killed"), { timeoutMs: 30_000 });
      child.kill("SIGKILL");
      expect((await child).signal).toBe("SIGKILL");
      // It could not withdraw: it goes when its last announcement lapses (three intervals).
      await eventually("gw-b no longer lists the killed replica", async () => !replicaIds(await b.cluster()).includes("gw-killed"));
      expect(replicaIds(await b.cluster())).toEqual(["gw-a", "gw-b"]);
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);
});
