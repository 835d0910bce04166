// What every response carries and what the gateway refuses at the HTTP level: browser origins,
// security headers, the per-tenant run rate limit, and the startup warning without authentication.
import { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { buildGateway, loadConfig } from "../src";

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function gateway(env: Record<string, string>, lines: Array<Record<string, unknown>> = []) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const app = await buildGateway(loadConfig({ LOG_LEVEL: "warn", ...env }), { logger: pino({ level: "warn" }, sink) });
  apps.push(app);
  return app;
}

const post = (app: FastifyInstance, url: string, body: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: "POST", url, headers: { "content-type": "application/json", ...headers }, payload: JSON.stringify(body) });

describe("HTTP security", () => {
  it("lets the listed browser origins in, with the replica headers exposed, and no other", async () => {
    const app = await gateway({ AXIOM_CORS_ORIGINS: "https://app.test" });
    const allowed = await app.inject({ method: "GET", url: "/health", headers: { origin: "https://app.test" } });
    expect(allowed.headers["access-control-allow-origin"]).toBe("https://app.test");
    expect(String(allowed.headers["access-control-expose-headers"])).toContain("x-axiom-replica");
    const other = await app.inject({ method: "GET", url: "/health", headers: { origin: "https://evil.test" } });
    expect(other.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("sends the usual security headers, on refusals too", async () => {
    const server = await gateway({});
    const response = await server.inject({ method: "GET", url: "/health" });
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
    expect(response.headers["strict-transport-security"]).toBeDefined();
    expect(response.headers["x-powered-by"]).toBeUndefined();
    // Pages served over plain HTTP on a LAN address (/playground, /docs) keep loading their scripts.
    expect(response.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(response.headers["content-security-policy"]).not.toContain("upgrade-insecure-requests");
    for (const refused of [await server.inject({ method: "GET", url: "/no-such-route" }), await server.inject({ method: "POST", url: "/api/runs", payload: "{" })]) {
      expect(refused.statusCode).toBeGreaterThanOrEqual(400);
      expect(refused.headers["x-content-type-options"]).toBe("nosniff");
      expect(refused.headers["content-security-policy"]).toBe(response.headers["content-security-policy"]);
    }
  });

  it("limits runs per tenant per minute, answering 429 RATE_LIMITED with Retry-After", async () => {
    const app = await gateway({ AXIOM_RUN_RATE_LIMIT_PER_MINUTE: "2" });
    for (const tenant of ["a", "b"]) {
      await post(app, "/api/assistants", { id: "echo", name: "Echo" }, { "x-tenant-id": tenant });
      await post(app, "/api/threads", { thread_id: "t", assistant_id: "echo" }, { "x-tenant-id": tenant });
    }
    const run = (tenant: string) => post(app, "/api/runs", { assistant_id: "echo", thread_id: "t", message: "hi", mode: "queue" }, { "x-tenant-id": tenant });
    expect((await run("a")).statusCode).toBe(202);
    expect((await run("a")).statusCode).toBe(202);
    const limited = await run("a");
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: "RATE_LIMITED" });
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    // Another tenant has its own allowance.
    expect((await run("b")).statusCode).toBe(202);
  });

  it("warns loudly at startup when authentication is off, and not when it is on", async () => {
    const off: Array<Record<string, unknown>> = [];
    await gateway({}, off);
    expect(off.some((line) => String(line.msg).startsWith("AUTHENTICATION IS OFF"))).toBe(true);
    const on: Array<Record<string, unknown>> = [];
    await gateway({ AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: "a-test-secret-of-at-least-32-characters!" }, on);
    expect(on.some((line) => String(line.msg).startsWith("AUTHENTICATION IS OFF"))).toBe(false);
  });
});
