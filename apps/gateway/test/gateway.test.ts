import { REPLICA_HEADER } from "@axiom-lattice/protocols";
import { getReplicaId } from "@axiom-lattice/core";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGateway, loadConfig } from "../src";
import { GATEWAY_VERSION } from "../src/version";
import { useDocumentedResponses } from "./documentedResponses";

describe("gateway HTTP basics", () => {
  const checkResponses = useDocumentedResponses();
  let app: FastifyInstance;
  let failing = false;

  beforeAll(async () => {
    app = await buildGateway(loadConfig({ LOG_LEVEL: "silent" }), {
      readiness: [
        {
          name: "database",
          check: async () => {
            if (failing) throw new Error("connection refused");
          },
        },
      ],
    });
    app.post("/test/echo", async (request) => request.body);
    checkResponses(app);
  });
  afterAll(() => app.close());

  it("GET /health answers 200 with the replica header", async () => {
    const response = await app.inject({ method: "GET", url: "/health" });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: "ok", role: "all", version: GATEWAY_VERSION });
    expect(response.headers[REPLICA_HEADER]).toBe(getReplicaId());
  });

  it("GET / points a person at the API reference, the playground and health", async () => {
    const response = await app.inject({ method: "GET", url: "/" });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ name: "axiom-lattice gateway", docs: "/docs", openapi: "/openapi.json", health: "/health", authentication: "none" });
    for (const path of [response.json().docs, response.json().openapi]) expect((await app.inject({ method: "GET", url: path })).statusCode).toBeLessThan(400);
  });

  it("GET /ready reflects its checks", async () => {
    const ready = await app.inject({ method: "GET", url: "/ready" });
    expect([ready.statusCode, ready.json()]).toEqual([200, { status: "ready" }]);
    failing = true;
    try {
      const response = await app.inject({ method: "GET", url: "/ready" });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ success: false, code: "NOT_READY", failures: { database: "connection refused" } });
    } finally {
      failing = false;
    }
  });

  it("answers no browser on another origin unless AXIOM_CORS_ORIGINS lists it (same-origin by default)", async () => {
    const response = await app.inject({ method: "GET", url: "/health", headers: { origin: "http://example.test" } });
    expect(response.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("answers unknown routes with a JSON 404: in the /api shape under /api, in LangGraph's { detail } elsewhere", async () => {
    for (const url of ["/api/no/such/route", "/api", "/api?x=1"]) {
      const response = await app.inject({ method: "GET", url });
      expect([response.statusCode, response.json()]).toEqual([404, { success: false, code: "NOT_FOUND", error: `Route GET ${url} not found` }]);
    }
    for (const url of ["/no/such/route", "/apix", "/threads/t1/nothing"]) {
      const response = await app.inject({ method: "POST", url });
      expect([response.statusCode, response.json()]).toEqual([404, { detail: `Route POST ${url} not found`, code: "NOT_FOUND" }]);
    }
  });

  it("refuses malformed JSON with 400 INVALID_JSON", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/test/echo",
      headers: { "content-type": "application/json" },
      payload: "{not json",
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, code: "INVALID_JSON" });
  });

  it("refuses a body over 1 MiB with 413", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/test/echo",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ text: "x".repeat(1024 * 1024) }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ success: false, code: "PAYLOAD_TOO_LARGE" });
  });

  it("refuses an unsupported content type with 415", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/test/echo",
      headers: { "content-type": "application/x-unknown" },
      payload: "abc",
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ success: false, code: "UNSUPPORTED_MEDIA_TYPE" });
  });
});

describe("GET /metrics", () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildGateway(loadConfig({ LOG_LEVEL: "silent" }));
  });
  afterAll(() => app.close());

  it("answers the Prometheus text format with process, run, queue and outbox metrics", async () => {
    const response = await app.inject({ method: "GET", url: "/metrics" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^text\/plain/);
    for (const name of [
      "lattice_process_resident_memory_bytes",
      "lattice_runs_active_threads 0",
      "lattice_runs_waiting_threads 0",
      "lattice_queue_pending_messages 0",
      'lattice_outbox_deliveries_total{outcome="delivered"} 0',
      "lattice_outbox_horizon_age_seconds 0",
    ]) {
      expect(response.body).toContain(name);
    }
  });
});
