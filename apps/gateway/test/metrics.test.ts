// /metrics as a Prometheus user reads it: counters that move when runs, claims, leases, outbox events
// and schedule fires happen, by the right amounts, under conventional names; one registry per gateway.
import { tryAcquireThreadRun } from "@axiom-lattice/core";
import { eventually } from "@axiom-lattice/testing";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayContext } from "../src/context/gatewayContext";
import { type Family, parseExposition, valueOf } from "./prometheus";
import { buildTestGateway } from "./support";

interface Gateway {
  app: FastifyInstance;
  context: GatewayContext;
  scrape(): Promise<Map<string, Family>>;
  post(url: string, payload: unknown): Promise<LightMyRequestResponse>;
}

const opened: Gateway[] = [];
afterAll(async () => {
  for (const { app, context } of opened) {
    await app.close();
    await context.close();
  }
});

/** A gateway on in-memory stores with its background work running, as `start()` leaves it. */
async function gateway(replicaId: string, env: Record<string, string> = {}): Promise<Gateway> {
  const { app, context } = await buildTestGateway({ AXIOM_REPLICA_ID: replicaId, ...env }, { started: true });
  const created: Gateway = {
    app,
    context,
    async scrape() {
      const response = await app.inject({ method: "GET", url: "/metrics" });
      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
      return parseExposition(response.body);
    },
    post: (url, payload) => app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) }),
  };
  opened.push(created);
  return created;
}

/** What moved between two scrapes. */
const delta = (before: Map<string, Family>, after: Map<string, Family>) => (name: string, labels: Record<string, string> = {}) =>
  valueOf(after, name, labels) - valueOf(before, name, labels);

describe("GET /metrics", () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await gateway("gw-metrics");
    expect((await gw.post("/api/assistants", { id: "echo", name: "Echo" })).statusCode).toBe(201);
  });

  it("counts runs by outcome, with their durations, first chunks, claims and thread-run leases", async () => {
    expect((await gw.post("/api/threads", { thread_id: "outcomes", assistant_id: "echo" })).statusCode).toBe(201);
    const before = await gw.scrape();
    for (const message of ["hello", "/fail on purpose", "/interrupt proceed?"]) {
      const run = await gw.post("/api/runs", { assistant_id: "echo", thread_id: "outcomes", message, mode: "wait" });
      expect(run.statusCode).toBe(200);
    }
    const moved = delta(before, await gw.scrape());

    expect(moved("lattice_runs_total", { status: "success" })).toBe(1);
    expect(moved("lattice_runs_total", { status: "error" })).toBe(1);
    expect(moved("lattice_runs_total", { status: "interrupted" })).toBe(1);
    expect(moved("lattice_runs_total", { status: "aborted" })).toBe(0);
    expect(moved("lattice_run_duration_seconds_count")).toBe(3);
    expect(moved("lattice_run_duration_seconds_count", { status: "error" })).toBe(1);
    // The echo streams tokens and the interrupt a tool call; the failing model says nothing.
    expect(moved("lattice_run_first_chunk_seconds_count")).toBe(2);
    expect(moved("lattice_queue_claims_total")).toBe(3);
    expect(moved("lattice_queue_reclaims_total")).toBe(0);
    expect(moved("lattice_lease_acquisitions_total", { kind: "thread-run" })).toBeGreaterThanOrEqual(1);
    expect(moved("lattice_lease_losses_total")).toBe(0);
  });

  it("counts the messages a run's replica takes back from a holder that left them claimed", async () => {
    expect((await gw.post("/api/threads", { thread_id: "left", assistant_id: "echo" })).statusCode).toBe(201);
    const scope = { tenantId: "default", assistantId: "echo" };
    await gw.context.stores.queue.addMessage({ threadId: "left", scope, content: { message: "left behind" } });
    const [claimed] = await gw.context.stores.queue.claimPendingMessages({ ...scope, threadId: "left" }, { owner: "gone#1", leaseMs: 60_000 });
    expect(claimed).toBeDefined();
    const before = await gw.scrape();

    const run = await gw.post("/api/runs", { assistant_id: "echo", thread_id: "left", message: "after it", mode: "wait" });
    expect(run.json()).toMatchObject({ status: "success" });
    const moved = delta(before, await gw.scrape());
    expect(moved("lattice_queue_reclaims_total")).toBe(1);
    expect(moved("lattice_queue_claims_total")).toBe(2);
    expect(moved("lattice_runs_total", { status: "success" })).toBe(2);
  });

  it("counts schedule fires by task type and outcome, and every outbox append the poller then passes", async () => {
    gw.context.schedules.registerHandler("metrics-ok", () => {});
    gw.context.schedules.registerHandler("metrics-fail", () => {
      throw new Error("refused on purpose");
    });
    const before = await gw.scrape();
    await gw.context.schedules.scheduleOnce({ taskType: "metrics-ok", delayMs: 20 });
    await gw.context.schedules.scheduleOnce({ taskType: "metrics-fail", delayMs: 20, maxRetries: 0 });
    await eventually("both fires settled", async () => {
      const after = await gw.scrape();
      return valueOf(after, "lattice_schedule_fires_total") - valueOf(before, "lattice_schedule_fires_total") === 2;
    });
    // Every append reaches this replica's poller (skipped there: it delivered it locally).
    await eventually("the poller passed every append", async () => {
      const after = await gw.scrape();
      return valueOf(after, "lattice_outbox_deliveries_total") === valueOf(after, "lattice_outbox_appends_total");
    });
    const moved = delta(before, await gw.scrape());

    expect(moved("lattice_schedule_fires_total", { task_type: "metrics-ok", outcome: "succeeded" })).toBe(1);
    expect(moved("lattice_schedule_fires_total", { task_type: "metrics-fail", outcome: "failed" })).toBe(1);
    expect(moved("lattice_schedule_claims_lost_total")).toBe(0);
    // Each schedule is announced to peers when created and when its fire settles.
    expect(moved("lattice_outbox_appends_total", { topic: "schedule-changed" })).toBe(4);
    expect(moved("lattice_outbox_deliveries_total", { outcome: "skipped_own" })).toBe(4);
  });

  it("counts the appends a unit of work commits, not those it rolls back", async () => {
    const task = await gw.post("/api/tasks", { id: "counted", title: "counted", owner_type: "user", owner_id: "u" });
    expect(task.statusCode).toBe(201);
    const before = await gw.scrape();
    const patch = (status: string) => gw.app.inject({ method: "PATCH", url: "/api/tasks/counted", headers: { "content-type": "application/json" }, payload: JSON.stringify({ status }) });
    expect((await patch("completed")).statusCode).toBe(200);
    const failing = new Error("rolled back");
    await expect(
      gw.context.stores.inTransaction(async (tx) => {
        await tx.outbox.append({ topic: "task-lifecycle", payload: {}, originReplicaId: "gw-metrics" });
        throw failing;
      }),
    ).rejects.toBe(failing);
    expect(delta(before, await gw.scrape())("lattice_outbox_appends_total", { topic: "task-lifecycle" })).toBe(1);
  });

  it("counts affinity misses, and the SSE streams open now", async () => {
    // Strict affinity: by default a replica follows a peer's run instead of answering a miss.
    const strict = await gateway("gw-metrics-strict", { AXIOM_STREAM_RELAY: "off" });
    expect((await strict.post("/api/assistants", { id: "echo", name: "Echo" })).statusCode).toBe(201);
    expect((await strict.post("/api/threads", { thread_id: "peer-runs-it", assistant_id: "echo" })).statusCode).toBe(201);
    const peer = await tryAcquireThreadRun(
      { tenantId: "default", assistantId: "echo", threadId: "peer-runs-it" },
      { store: strict.context.stores.lease, replicaId: "gw-peer", logger: strict.context.logger },
    );
    const queued = await strict.post("/api/runs", { assistant_id: "echo", thread_id: "peer-runs-it", message: "later", message_id: "later", mode: "queue" });
    expect(queued.statusCode).toBe(202);
    const before = await strict.scrape();
    const miss = await strict.post("/api/runs/resume_stream", { assistant_id: "echo", thread_id: "peer-runs-it", message_id: "later" });
    expect(miss.body).toContain("affinity_miss");
    await peer!.release();
    const moved = delta(before, await strict.scrape());
    expect(moved("lattice_affinity_misses_total")).toBe(1);

    await gw.app.listen({ port: 0, host: "127.0.0.1" });
    const address = gw.app.server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    expect((await gw.post("/api/threads", { thread_id: "streamed", assistant_id: "echo" })).statusCode).toBe(201);
    // The stream's headers go out with its first chunk, which this run keeps back: count it server-side.
    const client = new AbortController();
    const stream = fetch(`http://127.0.0.1:${port}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "echo", thread_id: "streamed", message: "/sleep 60000" }),
      signal: client.signal,
    }).catch((error: unknown) => error);
    await eventually("the stream is counted open", async () => valueOf(await gw.scrape(), "lattice_sse_subscribers") === 1);
    client.abort();
    await stream;
    await eventually("the stream is counted closed", async () => valueOf(await gw.scrape(), "lattice_sse_subscribers") === 0);
    await gw.post("/api/runs/abort", { assistant_id: "echo", thread_id: "streamed" });
  });

  it("counts lease acquisitions and losses by kind, never by key", async () => {
    const leases = gw.context.stores.lease;
    const before = await gw.scrape();
    expect(await leases.acquire("leader:metrics-test", "gw-metrics#1", 100)).not.toBeNull();
    expect(await leases.tryAcquire("task-run:tenant-x-task", "gw-metrics#2", 60_000)).toBe(true);
    expect(await leases.tryAcquire("task-run:tenant-x-task", "gw-other#3", 60_000)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The first holder's lease lapsed and another took it: its renewal is refused, a loss.
    expect(await leases.acquire("leader:metrics-test", "gw-metrics#4", 60_000)).not.toBeNull();
    expect(await leases.renew("leader:metrics-test", "gw-metrics#1", 60_000)).toBe(false);
    expect(await leases.renew("leader:metrics-test", "gw-metrics#4", 60_000)).toBe(true);
    const after = await gw.scrape();
    const moved = delta(before, after);

    expect(moved("lattice_lease_acquisitions_total", { kind: "leader" })).toBe(2);
    expect(moved("lattice_lease_acquisitions_total", { kind: "task-run" })).toBe(1);
    expect(moved("lattice_lease_losses_total", { kind: "leader" })).toBe(1);
    const kinds = after.get("lattice_lease_acquisitions_total")!.samples.map((sample) => sample.labels.kind);
    expect(kinds.filter((kind) => kind.includes("tenant-x") || kind.includes("metrics-test"))).toEqual([]);
  });

  it("times HTTP requests by route pattern and status, never by raw URL", async () => {
    await gw.app.inject({ method: "GET", url: "/api/threads/outcomes" });
    await gw.app.inject({ method: "GET", url: "/api/threads/no-such-thread" });
    await gw.app.inject({ method: "GET", url: "/no/such/route" });
    const families = await gw.scrape();
    const http = families.get("lattice_http_request_duration_seconds")!;
    expect(valueOf(families, "lattice_http_request_duration_seconds_count", { method: "GET", route: "/api/threads/:id", status_code: "200" })).toBeGreaterThanOrEqual(1);
    expect(valueOf(families, "lattice_http_request_duration_seconds_count", { method: "GET", route: "/api/threads/:id", status_code: "404" })).toBeGreaterThanOrEqual(1);
    expect(valueOf(families, "lattice_http_request_duration_seconds_count", { route: "unmatched", status_code: "404" })).toBeGreaterThanOrEqual(1);
    const routes = new Set(http.samples.map((sample) => sample.labels.route));
    expect([...routes].filter((route) => /outcomes|no-such/.test(route))).toEqual([]);
  });

  it("names every family by the Prometheus conventions, each with help and a type", async () => {
    const families = await gw.scrape();
    for (const name of [
      "lattice_runs_total",
      "lattice_run_duration_seconds",
      "lattice_run_first_chunk_seconds",
      "lattice_queue_claims_total",
      "lattice_queue_reclaims_total",
      "lattice_lease_acquisitions_total",
      "lattice_lease_losses_total",
      "lattice_outbox_appends_total",
      "lattice_outbox_deliveries_total",
      "lattice_schedule_fires_total",
      "lattice_schedule_claims_lost_total",
      "lattice_affinity_misses_total",
      "lattice_sse_subscribers",
      "lattice_http_request_duration_seconds",
      "lattice_queue_pending_messages",
      "lattice_process_resident_memory_bytes",
    ]) {
      expect(families.has(name), name).toBe(true);
    }
    // prom-client's own default gauges, named before the convention reached them.
    const inherited = new Set(["lattice_nodejs_active_handles_total", "lattice_nodejs_active_requests_total", "lattice_nodejs_active_resources_total"]);
    for (const family of [...families.values()].filter(({ name }) => !inherited.has(name))) {
      expect(family.name).toMatch(/^lattice_[a-z0-9_]+$/);
      expect(family.help, family.name).not.toBe("");
      expect(family.name, family.name).not.toMatch(/_(ms|milliseconds|percent)$|_ms_/);
      if (family.type === "counter") expect(family.name).toMatch(/_total$/);
      else expect(family.name).not.toMatch(/_total$/);
      if (family.type === "histogram") expect(family.name).toMatch(/_seconds$/);
    }
  });
});

describe("two gateways in one process", () => {
  it("count into registries of their own", async () => {
    const a = await gateway("gw-metrics-a");
    const b = await gateway("gw-metrics-b");
    expect((await a.post("/api/assistants", { id: "echo", name: "Echo" })).statusCode).toBe(201);
    expect((await a.post("/api/threads", { thread_id: "t", assistant_id: "echo" })).statusCode).toBe(201);
    const bBefore = await b.scrape();
    expect((await a.post("/api/runs", { assistant_id: "echo", thread_id: "t", message: "hi", mode: "wait" })).statusCode).toBe(200);

    expect(valueOf(await a.scrape(), "lattice_runs_total", { status: "success" })).toBe(1);
    const bMoved = delta(bBefore, await b.scrape());
    expect(bMoved("lattice_runs_total")).toBe(0);
    expect(bMoved("lattice_queue_claims_total")).toBe(0);
    expect(bMoved("lattice_http_request_duration_seconds_count", { route: "/api/runs" })).toBe(0);
  });
});

describe("who may scrape", () => {
  const METRICS_TOKEN = "a-metrics-token-for-prometheus";

  it("with authentication on and no AXIOM_METRICS_TOKEN, anyone (as documented); with one, only its bearer: no tenant token opens it", async () => {
    const open = await gateway("gw-metrics-open", { AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: "a-metrics-test-secret-of-32-characters" });
    expect((await open.app.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(200);

    const closed = await gateway("gw-metrics-closed", { AXIOM_METRICS_TOKEN: METRICS_TOKEN });
    const scrape = (authorization?: string) => closed.app.inject({ method: "GET", url: "/metrics", headers: authorization ? { authorization } : {} });
    for (const refused of [undefined, "Bearer wrong-token", `Bearer ${METRICS_TOKEN}x`, METRICS_TOKEN, `Basic ${METRICS_TOKEN}`]) {
      const response = await scrape(refused);
      expect(response.statusCode, refused).toBe(401);
      expect(response.json(), refused).toMatchObject({ code: "UNAUTHENTICATED" });
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer /);
      expect(response.body).not.toContain("lattice_");
    }
    const allowed = await scrape(`Bearer ${METRICS_TOKEN}`);
    expect(allowed.statusCode).toBe(200);
    expect(allowed.body).toContain("lattice_runs_total");
  });

  it("refuses a token shorter than 16 characters at startup", async () => {
    await expect(buildTestGateway({ AXIOM_METRICS_TOKEN: "short" })).rejects.toThrow(/AXIOM_METRICS_TOKEN: must be at least 16 characters/);
  });
});
