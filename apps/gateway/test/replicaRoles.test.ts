// AXIOM_ROLE on one database: an `api` replica serves the API and runs nothing, a `worker` runs the
// messages and serves its operators only (health, readiness, metrics).
import { type TestDatabase, parseSse } from "@axiom-lattice/testing";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayContext } from "../src/context/gatewayContext";
import { GATEWAY_VERSION } from "../src/version";
import { useDocumentedResponses } from "./documentedResponses";
import { buildTestGateway, createMigratedTestDatabase } from "./support";

const ASSISTANT = "echo";

let database: TestDatabase;
const started: Array<{ app: FastifyInstance; context: GatewayContext }> = [];
let api: FastifyInstance;
let worker: FastifyInstance;

const post = (app: FastifyInstance, url: string, payload: unknown) =>
  app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });

async function replica(replicaId: string, role: string): Promise<FastifyInstance> {
  const gateway = await buildTestGateway({ DATABASE_URL: database.url, AXIOM_REPLICA_ID: replicaId, AXIOM_ROLE: role }, { started: true });
  started.push(gateway);
  return gateway.app;
}

// The api replica's answers are its OpenAPI document's; a worker has none.
const checkResponses = useDocumentedResponses();

beforeAll(async () => {
  database = await createMigratedTestDatabase();
  api = await replica("gw-api", "api");
  checkResponses(api);
  worker = await replica("gw-worker", "worker");
  expect((await post(api, "/api/assistants", { id: ASSISTANT, name: "Echo" })).statusCode).toBe(201);
});

afterAll(async () => {
  for (const { app, context } of started) {
    await app.close();
    await context.close();
  }
  await database?.drop();
});

const runRecord = async (threadId: string, messageId: string) => {
  const { runs } = (await api.inject({ method: "GET", url: `/api/threads/${threadId}/runs` })).json<{ runs: Array<{ message_id: string; replica_id: string | null; status: string }> }>();
  return runs.find((run) => run.message_id === messageId);
};

describe("api and worker replicas", () => {
  it("a worker's port answers health, readiness and metrics with its role, and none of the API", async () => {
    expect((await worker.inject({ method: "GET", url: "/health" })).json()).toEqual({ status: "ok", role: "worker", version: GATEWAY_VERSION });
    expect((await worker.inject({ method: "GET", url: "/ready" })).statusCode).toBe(200);
    expect((await worker.inject({ method: "GET", url: "/metrics" })).body).toContain('lattice_replica_role{role="worker"} 1');
    for (const [method, url] of [
      ["GET", "/api/threads"],
      ["POST", "/api/runs"],
      ["GET", "/api/cluster"],
      ["POST", "/threads"],
      ["POST", "/runs/wait"],
      ["GET", "/openapi.json"],
      ["GET", "/playground"],
    ] as const) {
      expect((await worker.inject({ method, url })).statusCode, `${method} ${url}`).toBe(404);
    }
  });

  it("an api replica says its role, and takes runs that the worker executes: wait, stream and queue", async () => {
    expect((await api.inject({ method: "GET", url: "/health" })).json()).toEqual({ status: "ok", role: "api", version: GATEWAY_VERSION });
    expect((await api.inject({ method: "GET", url: "/metrics" })).body).toContain('lattice_replica_role{role="api"} 1');
    expect((await post(api, "/api/threads", { thread_id: "t-roles", assistant_id: ASSISTANT })).statusCode).toBe(201);

    const waited = await post(api, "/api/runs", { assistant_id: ASSISTANT, thread_id: "t-roles", message: "waited", message_id: "m-wait", mode: "wait" });
    expect(waited.statusCode).toBe(200);
    expect(waited.headers["x-axiom-replica"]).toBe("gw-api");
    expect(waited.json()).toMatchObject({ status: "success", messages: [{ content: "waited" }, { content: "echo: waited" }] });

    const streamed = await post(api, "/api/runs", { assistant_id: ASSISTANT, thread_id: "t-roles", message: "streamed", message_id: "m-stream", mode: "stream" });
    const events = parseSse(streamed.body);
    expect(events.at(-1)).toMatchObject({ type: "message_completed" });

    const queued = await post(api, "/api/runs", { assistant_id: ASSISTANT, thread_id: "t-roles", message: "queued", message_id: "m-queue", mode: "queue" });
    expect(queued.statusCode).toBe(202);
    const resumed = parseSse((await post(api, "/api/runs/resume_stream", { assistant_id: ASSISTANT, thread_id: "t-roles", message_id: "m-queue" })).body);
    expect(resumed.at(-1)).toMatchObject({ type: "message_completed" });

    for (const messageId of ["m-wait", "m-stream", "m-queue"]) expect(await runRecord("t-roles", messageId)).toMatchObject({ status: "success", replica_id: "gw-worker" });
  });

  it("GET /api/cluster on the api replica lists each replica with its role", async () => {
    const { replicas } = (await api.inject({ method: "GET", url: "/api/cluster" })).json<{ replicas: Array<{ replica_id: string; role: string }> }>();
    expect(replicas.map(({ replica_id, role }) => ({ replica_id, role }))).toEqual([
      { replica_id: "gw-api", role: "api" },
      { replica_id: "gw-worker", role: "worker" },
    ]);
  });

  it("an api replica's recover defers what is queued to the workers instead of running it, and reports an idle thread idle", async () => {
    await post(api, "/api/threads", { thread_id: "t-deferred", assistant_id: ASSISTANT });
    await post(api, "/api/runs", { assistant_id: ASSISTANT, thread_id: "t-deferred", message: "/sleep 1000", message_id: "m-later", mode: "queue" });
    const deferred = await post(api, "/api/runs/recover", { assistant_id: ASSISTANT, thread_id: "t-deferred" });
    expect(deferred.json()).toEqual({ status: "busy", code: "AFFINITY_MISS" });
    const resumed = parseSse((await post(api, "/api/runs/resume_stream", { assistant_id: ASSISTANT, thread_id: "t-deferred", message_id: "m-later" })).body);
    expect(resumed.at(-1)).toMatchObject({ type: "message_completed" });
    const idle = await post(api, "/api/runs/recover", { assistant_id: ASSISTANT, thread_id: "t-roles" });
    expect(idle.json()).toEqual({ status: "idle" });
  });
});
