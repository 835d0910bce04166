// Fairness between tenants with authentication on: per-tenant limits on queued messages and open
// streams, and run slots shared so one tenant's backlog never holds up another's run.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { LightMyRequestResponse } from "fastify";
import { SignJWT } from "jose";
import { eventually } from "@axiom-lattice/testing";
import { Pool } from "@axiom-lattice/pg-stores";
import { describe, expect, it } from "vitest";
import { issueToken } from "../src/auth/tokenIssuer";
import { parseExposition, valueOf } from "./prometheus";
import { type TestGateway, useGateway, useStoreEnv } from "./support";

const SECRET = "a-test-secret-of-at-least-32-characters!";
const AUTH = { AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET };

/** Requests of one tenant, with its bearer token; sets up its assistant `echo`. */
async function tenant(gateway: TestGateway, tenantId: string) {
  const headers = { authorization: `Bearer ${await issueToken({ secret: SECRET, tenantId, subject: "tester", scope: "admin", expiresIn: "1h" })}` };
  const client = {
    headers,
    post: (url: string, body: unknown) => gateway.post(url, body, headers),
    get: (url: string) => gateway.get(url, headers),
    thread: async (threadId: string) => expect((await client.post("/api/threads", { thread_id: threadId, assistant_id: "echo" })).statusCode).toBe(201),
    run: (threadId: string, message: string, mode: "queue" | "wait" | "stream", messageId?: string) =>
      client.post("/api/runs", { assistant_id: "echo", thread_id: threadId, message, mode, ...(messageId ? { message_id: messageId } : {}) }),
  };
  expect((await client.post("/api/assistants", { id: "echo", name: "Echo" })).statusCode).toBe(201);
  return client;
}

const metricsOf = async (gateway: TestGateway) => parseExposition((await gateway.get("/metrics")).body);

function expectRefused(response: LightMyRequestResponse, code: string): void {
  expect(response.statusCode).toBe(429);
  expect(response.headers["retry-after"]).toBe("5");
  expect(response.json()).toMatchObject({ success: false, code, error: expect.any(String) });
}

describe.each(["memory", "postgresql"])("queued messages per tenant (%s stores)", (stores) => {
  const gateway = useGateway(async () => {}, (() => {
    const storeEnv = useStoreEnv(stores);
    return () => ({ ...storeEnv(), ...AUTH, AXIOM_TENANT_MAX_QUEUED_MESSAGES: "3" });
  })());

  it("refuses the tenant's message beyond its limit with 429 QUEUE_FULL, writing nothing; other tenants go on", async () => {
    const a = await tenant(gateway, "tenant-a");
    const b = await tenant(gateway, "tenant-b");
    for (const threadId of ["a-1", "a-2", "a-3", "a-4"]) await a.thread(threadId);
    await b.thread("b-1");
    for (const threadId of ["a-1", "a-2", "a-3"]) expect((await a.run(threadId, "/sleep 3000", "queue")).statusCode).toBe(202);

    for (const mode of ["queue", "wait", "stream"] as const) {
      expectRefused(await a.run("a-4", "over", mode, `over-${mode}`), "QUEUE_FULL");
      expect(await gateway.context.stores.queue.getMessage(`over-${mode}`, { tenantId: "tenant-a", assistantId: "echo" })).toBeNull();
    }
    expect((await a.get("/api/threads/a-4/queue")).json()).toMatchObject({ pending: [], processing: [] });
    expect((await b.run("b-1", "hello", "wait")).json()).toMatchObject({ status: "success" });
    expect(valueOf(await metricsOf(gateway), "lattice_tenant_refusals_total", { tenant: "tenant-a", reason: "queue_full" })).toBe(3);
    expect(valueOf(await metricsOf(gateway), "lattice_tenant_refusals_total", { tenant: "tenant-b" })).toBe(0);
  });

  it("answers an A2A task beyond the limit with the same 429 QUEUE_FULL, in either version, sent or streamed, leaving no task nor context", async () => {
    const a = await tenant(gateway, "tenant-c");
    for (const threadId of ["c-1", "c-2", "c-3"]) {
      await a.thread(threadId);
      expect((await a.run(threadId, "/sleep 3000", "queue")).statusCode).toBe(202);
    }
    const threadsBefore = (await a.get("/api/threads?assistant_id=echo&limit=100")).json();
    const calls = [
      ["1.0", "SendMessage", { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "over" }] } }],
      ["1.0", "SendStreamingMessage", { message: { messageId: "m-2", role: "ROLE_USER", parts: [{ text: "over" }] } }],
      ["0.3", "message/send", { message: { kind: "message", messageId: "m-3", role: "user", parts: [{ kind: "text", text: "over" }] } }],
      ["0.3", "message/stream", { message: { kind: "message", messageId: "m-4", role: "user", parts: [{ kind: "text", text: "over" }] } }],
    ] as const;
    for (const [version, method, params] of calls) {
      const answer = await gateway.post("/a2a/echo", { jsonrpc: "2.0", id: 1, method, params }, { ...a.headers, "a2a-version": version });
      expectRefused(answer, "QUEUE_FULL");
    }
    expect((await a.get("/api/threads?assistant_id=echo&limit=100")).json()).toEqual(threadsBefore);
    expect(gateway.context.streams.byTenant().get("tenant-c")).toBeUndefined();
  });
});

describe("open streams per tenant", () => {
  const gateway = useGateway(async () => {}, () => ({ ...AUTH, AXIOM_TENANT_MAX_STREAMS: "2" }));

  it("refuses a tenant's stream beyond its limit with 429 TOO_MANY_STREAMS before queuing; a closed stream frees its place", async () => {
    const a = await tenant(gateway, "tenant-a");
    const b = await tenant(gateway, "tenant-b");
    await a.thread("a-1");
    // Over real sockets: a client that hangs up closes its stream on the server.
    const base = await gateway.app.listen({ host: "127.0.0.1", port: 0 });
    const follow = async (headers: Record<string, string>, path: string, body?: unknown) => {
      const hangUp = new AbortController();
      const response = await fetch(`${base}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: hangUp.signal,
      });
      return { status: response.status, close: () => hangUp.abort() };
    };
    const open = [
      await follow(a.headers, "/api/runs", { assistant_id: "echo", thread_id: "a-1", message: "/sleep 3000", mode: "stream" }),
      await follow(a.headers, "/api/tasks/events"),
    ];
    expect(open.map((stream) => stream.status)).toEqual([200, 200]);

    expectRefused(await a.run("a-1", "over", "stream", "over-stream"), "TOO_MANY_STREAMS");
    expect(await gateway.context.stores.queue.getMessage("over-stream", { tenantId: "tenant-a", assistantId: "echo" })).toBeNull();
    expectRefused(await a.get("/api/tasks/events"), "TOO_MANY_STREAMS");
    const other = await follow(b.headers, "/api/tasks/events");
    expect(other.status).toBe(200);
    const families = await metricsOf(gateway);
    expect(valueOf(families, "lattice_tenant_streams_open", { tenant: "tenant-a" })).toBe(2);
    expect(valueOf(families, "lattice_tenant_streams_open", { tenant: "tenant-b" })).toBe(1);
    expect(valueOf(families, "lattice_tenant_refusals_total", { tenant: "tenant-a", reason: "too_many_streams" })).toBe(2);

    open[0].close();
    await eventually("the closed stream's place freed", () => gateway.context.streams.byTenant().get("tenant-a") === 1);
    const again = await follow(a.headers, "/api/tasks/events");
    expect(again.status).toBe(200);
    for (const stream of [open[1], again, other]) stream.close();
    await eventually("every place freed", () => gateway.context.streams.byTenant().size === 0);
  });
});

describe("run slots between tenants, with authentication on and default settings", () => {
  const gateway = useGateway(async () => {}, () => AUTH);

  it("runs another tenant's `wait` run promptly while one tenant's backlog fills the replica", async () => {
    const a = await tenant(gateway, "tenant-a");
    const b = await tenant(gateway, "tenant-b");
    const threads = Array.from({ length: 30 }, (_, n) => `flood-${n}`);
    for (const threadId of threads) await a.thread(threadId);
    await b.thread("quiet");
    for (const threadId of threads) {
      for (let n = 0; n < 2; n += 1) expect((await a.run(threadId, "/sleep 500", "queue")).statusCode).toBe(202);
    }
    // Eight slots by default, of which tenant-a holds half; the rest of its backlog waits.
    await eventually("tenant-a holds its share", () => gateway.context.agents.tenantRunStats().get("tenant-a")?.running === 4);
    const families = await metricsOf(gateway);
    expect(valueOf(families, "lattice_tenant_runs_active_threads", { tenant: "tenant-a" })).toBe(4);
    expect(valueOf(families, "lattice_tenant_runs_waiting_threads", { tenant: "tenant-a" })).toBeGreaterThan(20);

    const started = Date.now();
    expect((await b.run("quiet", "hello", "wait")).json()).toMatchObject({ status: "success" });
    // tenant-a's backlog is 60 runs of 0.5 s on 4 slots (7.5 s): tenant-b waited for none of it (at
    // most for one of its runs to end; the rest is room for a loaded machine).
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(gateway.context.agents.tenantRunStats().get("tenant-a")?.waiting).toBeGreaterThan(15);
    expect(gateway.context.agents.stats().runningThreads).toBeLessThanOrEqual(8);
  });
});

describe("run submissions per tenant, with authentication on and default settings (PostgreSQL)", () => {
  const storeEnv = useStoreEnv("postgresql");
  // A pool of 4: a quarter of it is under the least place per tenant (2), so 2 it is.
  const gateway = useGateway(async () => {}, () => ({ ...storeEnv(), ...AUTH, DATABASE_POOL_MAX: "4" }));

  /**
   * Holds tenant-a's queue lock (the advisory lock its bounded adds serialise on, lock space 198 of
   * the queue's SQL) in a transaction of our own: tenant-a's submissions stick in the database, as they
   * queue behind each other under a flood, for as long as the test says.
   */
  async function holdTenantQueueLock(tenantId: string) {
    const pool = new Pool({ connectionString: storeEnv().DATABASE_URL, max: 1 });
    const client = await pool.connect();
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(198, hashtext($1::text))", [tenantId]);
    const waiters = async () => {
      // Activity statistics are read once per transaction unless cleared: this one lasts the test.
      await client.query("SELECT pg_stat_clear_snapshot()");
      const { rows } = await client.query<{ count: number }>(
        "SELECT count(*)::integer AS count FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'",
      );
      return rows[0].count;
    };
    return {
      waiters,
      release: async () => {
        await client.query("ROLLBACK");
        client.release();
        await pool.end();
      },
    };
  }

  it("queues another tenant's run while one tenant's submissions are stuck in the database; the excess waits holding no connection", async () => {
    const a = await tenant(gateway, "tenant-a");
    const b = await tenant(gateway, "tenant-b");
    for (let n = 0; n < 12; n += 1) await a.thread(`a-${n}`);
    await b.thread("quiet");
    const lock = await holdTenantQueueLock("tenant-a");
    try {
      // An injected request starts only once something awaits it: start them all now.
      const flood = Array.from({ length: 12 }, (_, n) => Promise.resolve(a.run(`a-${n}`, "flood", "queue", `a-${n}`)));
      await eventually("tenant-a's submissions wait on its queue lock", async () => (await lock.waiters()) >= 2);

      // Without a bound, tenant-a's 12 stuck submissions would hold all 4 connections and tenant-b's
      // run would wait for one until the pool gave up (503 DATABASE_UNAVAILABLE).
      expect((await b.run("quiet", "hello", "wait")).json()).toMatchObject({ status: "success" });
      expect(await lock.waiters()).toBe(2);
      expect(gateway.context.submissions.byTenant().get("tenant-a")).toEqual({ underWay: 2, waiting: 10 });
      const families = await metricsOf(gateway);
      expect(valueOf(families, "lattice_tenant_run_submissions", { tenant: "tenant-a" })).toBe(2);
      expect(valueOf(families, "lattice_tenant_run_submissions_waiting", { tenant: "tenant-a" })).toBe(10);

      await lock.release();
      // The excess waited rather than being refused: every run is queued.
      expect((await Promise.all(flood)).map((response) => response.statusCode)).toEqual(Array(12).fill(202));
      expect(gateway.context.submissions.byTenant().size).toBe(0);
    } finally {
      await lock.release().catch(() => {});
    }
  });

  it("holds a tenant's runs started through A2A, a web app and MCP tool calls to the same line", async () => {
    /** Starts 4 runs of the tenant at once while its submissions are stuck: 2 under way, 2 waiting, then all through. */
    const holdsToTheLine = async (tenantId: string, start: (n: number) => Promise<unknown>) => {
      const lock = await holdTenantQueueLock(tenantId);
      try {
        const started = Array.from({ length: 4 }, (_, n) => start(n));
        await eventually(`${tenantId}'s submissions wait in its line`, () => gateway.context.submissions.byTenant().get(tenantId)?.waiting === 2);
        await eventually(`${tenantId}'s submissions under way wait on its queue lock`, async () => (await lock.waiters()) >= 2);
        expect(gateway.context.submissions.byTenant().get(tenantId)).toEqual({ underWay: 2, waiting: 2 });
        expect(await lock.waiters()).toBe(2);
        await lock.release();
        return await Promise.all(started);
      } finally {
        await lock.release().catch(() => {});
      }
    };

    const a2a = await tenant(gateway, "tenant-d");
    const sent = await holdsToTheLine("tenant-d", (n) =>
      a2a.post("/a2a/echo", { jsonrpc: "2.0", id: n, method: "SendMessage", params: { message: { messageId: `a2a-${n}`, role: "ROLE_USER", parts: [{ text: "hi" }] }, configuration: { returnImmediately: true } } }),
    );
    for (const answer of sent as LightMyRequestResponse[]) expect(answer.json()).toMatchObject({ result: { task: { id: expect.any(String) } } });

    const shop = await tenant(gateway, "tenant-e");
    const created = await shop.post("/api/web-apps", { assistant_id: "echo", name: "Shop", status: "published" });
    expect(created.statusCode).toBe(201);
    const { id } = created.json() as { id: string };
    const { secret } = (await shop.post(`/api/web-apps/${id}/secret`, {})).json() as { secret: string };
    const user = { authorization: `Bearer ${await new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setIssuer(id).setSubject("ada").setExpirationTime("10m").sign(new TextEncoder().encode(secret))}` };
    const opened = await gateway.post(`/web-apps/${id}/threads`, {}, user);
    expect(opened.statusCode).toBe(201);
    const { thread_id: threadId } = opened.json() as { thread_id: string };
    const queued = await holdsToTheLine("tenant-e", (n) => gateway.post(`/web-apps/${id}/runs`, { thread_id: threadId, message: `hi ${n}` }, user));
    expect((queued as LightMyRequestResponse[]).map((answer) => answer.statusCode)).toEqual([202, 202, 202, 202]);

    const tools = await tenant(gateway, "tenant-f");
    const client = new Client({ name: "fairness", version: "1.0.0" });
    const url = await gateway.app.listen({ port: 0, host: "127.0.0.1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: tools.headers } }));
    try {
      const [tool] = (await client.listTools()).tools;
      const called = await holdsToTheLine("tenant-f", (n) => client.callTool({ name: tool.name, arguments: { message: `hi ${n}` } }));
      expect(called).toHaveLength(4);
      for (const answer of called) expect(answer).toMatchObject({ structuredContent: { answer: expect.stringContaining("hi") } });
    } finally {
      await client.close();
    }
  });

  it("refuses a tenant's submission with 429 TOO_MANY_SUBMISSIONS, queuing nothing, once its waiting line is full", async () => {
    const c = await tenant(gateway, "tenant-c");
    await c.thread("line");
    const lock = await holdTenantQueueLock("tenant-c");
    try {
      const line = Array.from({ length: 102 }, (_, n) => Promise.resolve(c.run("line", "flood", "queue", `line-${n}`)));
      await eventually("tenant-c's line is full", () => gateway.context.submissions.byTenant().get("tenant-c")?.waiting === 100);
      const refused = await c.run("line", "over", "queue", "over");
      expect(refused.statusCode).toBe(429);
      expect(refused.headers["retry-after"]).toBe("1");
      expect(refused.json()).toMatchObject({ success: false, code: "TOO_MANY_SUBMISSIONS", error: expect.any(String) });
      expect(valueOf(await metricsOf(gateway), "lattice_tenant_refusals_total", { tenant: "tenant-c", reason: "too_many_submissions" })).toBe(1);
      await lock.release();
      expect((await Promise.all(line)).every((response) => response.statusCode === 202)).toBe(true);
      expect(await gateway.context.stores.queue.getMessage("over", { tenantId: "tenant-c", assistantId: "echo" })).toBeNull();
    } finally {
      await lock.release().catch(() => {});
    }
  });
});
