import { execa } from "execa";
import { PgBouncer, TcpProxy, eventually, findPgBouncer, followPostedSse, type TestDatabase } from "@axiom-lattice/testing";
import { Pool } from "@axiom-lattice/pg-stores";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLI, type CliGateway, startCli } from "./cliProcess";
import { createMigratedTestDatabase } from "./support";

// Real gateway processes whose database is reached through a TCP proxy the test breaks: an error
// they failed to handle would end them, which an in-process gateway would not show.
let db: TestDatabase;
let admin: Pool;
let proxy: TcpProxy;
let gateway: CliGateway | undefined;

const CONNECT_TIMEOUT_MS = 1_000;
const STATEMENT_TIMEOUT_MS = 2_000;

const env = (extra: Record<string, string> = {}) => ({
  PORT: "0",
  LOG_LEVEL: "info",
  DATABASE_URL: proxy.url(db.url),
  DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
  DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
  ...extra,
});

const get = (path: string) => fetch(`${gateway!.url}${path}`, { headers: { "x-tenant-id": "faults" } });

/** Terminates the gateway's idle pooled backends, as a restart or an idle-timeout would; returns how many. */
async function terminateIdlePooledBackends(): Promise<number> {
  const { rows } = await admin.query<{ ok: boolean }>(
    `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'lattice-gateway' AND state = 'idle' AND query NOT LIKE 'LISTEN%'`,
  );
  return rows.length;
}

beforeAll(async () => {
  db = await createMigratedTestDatabase("lattice_db_faults");
  admin = new Pool({ connectionString: db.url, max: 2 });
  proxy = await TcpProxy.forUrl(db.url);
});

afterEach(async () => {
  proxy.resume();
  await gateway?.stop();
  gateway = undefined;
});

afterAll(async () => {
  await proxy?.close();
  await admin?.end();
  await db?.drop();
});

describe("a gateway whose database fails", { timeout: 60_000 }, () => {
  it("survives its idle pooled connections being terminated, and serves the next request on a fresh one", async () => {
    gateway = await startCli(env());
    // Fill the pool with idle connections.
    await Promise.all(Array.from({ length: 5 }, () => get("/api/threads")));
    expect(await terminateIdlePooledBackends()).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(gateway.exitCode()).toBeUndefined();
    expect((await get("/api/threads")).status).toBe(200);
    expect((await get("/ready")).status).toBe(200);
    expect(gateway.stdout()).not.toContain("fatal error");
  });

  it("survives every connection being cut at once, and serves again", async () => {
    gateway = await startCli(env());
    await Promise.all(Array.from({ length: 5 }, () => get("/api/threads")));
    proxy.cut();
    await eventually("a request to succeed after the cut", async () => (await get("/api/threads")).status === 200, { timeoutMs: 5_000 });
    expect(gateway.exitCode()).toBeUndefined();
  });

  it("during a partition answers /ready 503 within a second and requests 503 DATABASE_UNAVAILABLE with Retry-After within its timeouts; ready again after", async () => {
    gateway = await startCli(env());
    expect((await get("/api/threads")).status).toBe(200);
    proxy.pause();

    let startedAt = Date.now();
    const ready = await get("/ready");
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ success: false, code: "NOT_READY", failures: { database: expect.any(String) } });
    expect((await get("/health")).status).toBe(200);
    startedAt = Date.now();
    const metrics = await get("/metrics");
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^lattice_db_pool_connections \d+$/m);

    startedAt = Date.now();
    const refused = await get("/api/threads");
    expect(Date.now() - startedAt).toBeLessThan(CONNECT_TIMEOUT_MS + STATEMENT_TIMEOUT_MS + 2_000);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await refused.json()).toMatchObject({ success: false, code: "DATABASE_UNAVAILABLE", error: expect.any(String) });

    proxy.resume();
    await eventually("/ready to answer 200 again", async () => (await get("/ready")).status === 200, { timeoutMs: 10_000 });
    expect((await get("/api/threads")).status).toBe(200);
    expect(gateway.exitCode()).toBeUndefined();
  });

  it("starts with its database unreachable: waits (one log line per attempt, /ready 503 meanwhile), then becomes ready once it answers", async () => {
    proxy.pause();
    gateway = await startCli(env(), 30_000, /answering at (http:\/\/[^\s"]+)/);
    const waiting = await get("/ready");
    expect(waiting.status).toBe(503);
    expect(await waiting.json()).toMatchObject({ code: "NOT_READY", failures: { database: expect.stringContaining("waiting for the database") } });
    expect((await get("/health")).status).toBe(200);
    const refused = await get("/api/threads");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await refused.json()).toMatchObject({ success: false, code: "NOT_READY" });
    await eventually("a second attempt", () => gateway!.stdout().match(/database unavailable/g)!.length >= 2, { timeoutMs: 10_000 });

    proxy.resume();
    await eventually("the gateway to be ready", () => gateway!.stdout().includes("gateway ready at"), { timeoutMs: 20_000 });
    expect((await get("/ready")).status).toBe(200);
    const attempts = gateway.stdout().split("\n").filter((line) => line.includes("database unavailable"));
    for (const line of attempts) expect(JSON.parse(line)).not.toHaveProperty("err"); // the reason, no stack
    expect(gateway.stderr()).toBe("");
  });

  it("gives up at AXIOM_DB_STARTUP_TIMEOUT_MS with a clear message and exit code 1", async () => {
    proxy.pause();
    gateway = await startCli(env({ AXIOM_DB_STARTUP_TIMEOUT_MS: "2000" }), 30_000, /answering at (http:\/\/[^\s"]+)/);
    await eventually("the gateway to exit", () => gateway!.exitCode() !== undefined, { timeoutMs: 15_000 });
    expect(gateway.exitCode()).toBe(1);
    expect(gateway.stderr()).toMatch(/^lattice-gateway: failed to start: the database did not answer within 2000 ms \(AXIOM_DB_STARTUP_TIMEOUT_MS; last: .+\): check that PostgreSQL runs where DATABASE_URL points and accepts connections\n$/);
  });

  // A pooler refuses a bad password with a connection-exception code (08P01), which startup would
  // otherwise wait on for AXIOM_DB_STARTUP_TIMEOUT_MS; and node-postgres' words for a missing one name
  // no setting.
  describe.skipIf(!findPgBouncer())("behind a pooler that asks for a password", () => {
    let bouncer: PgBouncer;
    beforeAll(async () => {
      bouncer = await PgBouncer.start({ databaseUrl: db.url, poolSize: 2, clientPassword: "the-right-password" });
    });
    afterAll(() => bouncer?.stop());

    const startWith = (password: string) => {
      const url = new URL(bouncer.url);
      url.password = password;
      return execa(process.execPath, [CLI], { env: env({ DATABASE_URL: url.toString() }), extendEnv: false, reject: false, timeout: 20_000 });
    };

    it("stops at once on a wrong password, naming what to check", async () => {
      const startedAt = Date.now();
      const result = await startWith("a-wrong-password");
      expect(Date.now() - startedAt).toBeLessThan(10_000);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(/^lattice-gateway: failed to start: the database refused the connection: .*authentication failed: check the user and password in DATABASE_URL$/);
    });

    it("stops at once without a password, saying DATABASE_URL lacks one", async () => {
      const result = await startWith("");
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toBe(
        "lattice-gateway: failed to start: the database asks for a password and DATABASE_URL gives none: add it (postgres://user:password@host:port/database)",
      );
    });
  });

  it("stops at once, with a clear message and exit code 1, when the database refuses it (no such database)", async () => {
    const url = new URL(proxy.url(db.url));
    url.pathname = "/lattice_no_such_database";
    const startedAt = Date.now();
    const result = await execa(process.execPath, [CLI], { env: env({ DATABASE_URL: url.toString() }), extendEnv: false, reject: false, timeout: 20_000 });
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/^lattice-gateway: failed to start: the database refused the connection: database "lattice_no_such_database" does not exist: create it \(e\.g\. `createdb <name>`\) or point DATABASE_URL at one that exists$/);
  });

  it("keeps a stream-mode run's stream through a partition while it waits its turn: every chunk once, in order, to the run's end", async () => {
    gateway = await startCli(env());
    const headers = { "x-tenant-id": "faults" };
    const post = (path: string, body: unknown) => fetch(`${gateway!.url}${path}`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await post("/api/assistants", { id: "echo", name: "Echo" })).status).toBe(201);
    expect((await post("/api/threads", { thread_id: "streamed", assistant_id: "echo" })).status).toBe(201);
    // Queued behind a run, the stream follows its message through the database until its turn.
    expect((await post("/api/runs", { assistant_id: "echo", thread_id: "streamed", message: "/sleep 1000", mode: "queue" })).status).toBe(202);
    const words = Array.from({ length: 10 }, (_, i) => `w${i}`).join(" ");
    const stream = await followPostedSse(`${gateway.url}/api/runs`, { assistant_id: "echo", thread_id: "streamed", message: `/drip 100 ${words}`, mode: "stream" }, headers);
    proxy.pause();
    await new Promise((resolve) => setTimeout(resolve, STATEMENT_TIMEOUT_MS + 1_500));
    proxy.resume();
    await stream.ended;

    const indexes = stream.events.map((event) => Number(event.id?.split(":").at(-1)));
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    expect(new Set(indexes).size).toBe(indexes.length);
    expect(stream.events.at(-1)?.type).toBe("message_completed");
    const state = (await (await fetch(`${gateway.url}/api/threads/streamed/state`, { headers })).json()) as { messages: Array<{ content: string }> };
    expect(state.messages.map((message) => message.content)).toEqual(["/sleep 1000", "echo: /sleep 1000", `/drip 100 ${words}`, `echo: /drip 100 ${words}`]);
    expect(gateway.exitCode()).toBeUndefined();
  });
});
