// Authentication and tenant isolation on every route: a table of cases walked over every /api route
// the gateway registers, so a new route without its isolation case fails here.
import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT, UnsecuredJWT, exportJWK, generateKeyPair } from "jose";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGateway, loadConfig } from "../src";
import { useDocumentedResponses } from "./documentedResponses";
import { apiRoutesOf } from "../src/auth/authentication";
import { issueToken } from "../src/auth/tokenIssuer";
import type { Scope } from "../src/auth/principal";

const SECRET = "a-test-secret-of-at-least-32-characters!";
const token = (tenantId: string, scope: Scope = "write", expiresIn = "1h") => issueToken({ secret: SECRET, tenantId, subject: "tester", scope, expiresIn });

let app: FastifyInstance;
let scheduleId = "";
let lgRunId = "";
let lgCronId = "";
let tokenA = "";
let tokenB = "";
let webAppId = "";
let apiKeyId = "";

/** `stream`: answer once the head is sent, with the body to read as a stream (a never-ending event stream). */
const send = (
  method: string,
  url: string,
  { bearer, body, headers = {}, stream = false }: { bearer?: string; body?: unknown; headers?: Record<string, string>; stream?: boolean } = {},
) =>
  app.inject({
    method: method as "GET",
    url,
    headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    payload: body === undefined ? undefined : JSON.stringify(body),
    payloadAsStream: stream,
  });

const checkResponses = useDocumentedResponses();

beforeAll(async () => {
  // The MCP servers' loopback address is refused with authentication on unless the operator lists it.
  app = await buildGateway(loadConfig({ LOG_LEVEL: "silent", AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET, AXIOM_UPSTREAM_ALLOW: "127.0.0.1, secret-of-a.test" }));
  checkResponses(app);
  [tokenA, tokenB] = await Promise.all([token("tenant-a", "admin"), token("tenant-b", "admin")]);
  // Tenant A's records, which tenant B must never reach.
  expect((await send("POST", "/api/assistants", { bearer: tokenA, body: { id: "a-assistant", name: "A" } })).statusCode).toBe(201);
  // An id only tenant A uses (B creates its own "a-assistant" in one of the cases).
  expect((await send("POST", "/api/assistants", { bearer: tokenA, body: { id: "a-assistant-only", name: "A" } })).statusCode).toBe(201);
  const provider = { id: "a-provider-only", kind: "openai", base_url: "https://secret-of-a.test/v1", api_key: "sk-secret of A" };
  expect((await send("POST", "/api/model-providers", { bearer: tokenA, body: provider })).statusCode).toBe(201);
  expect((await send("POST", "/api/threads", { bearer: tokenA, body: { thread_id: "a-thread", assistant_id: "a-assistant" } })).statusCode).toBe(201);
  const webApp = await send("POST", "/api/web-apps", { bearer: tokenA, body: { assistant_id: "a-assistant", name: "secret of A" } });
  expect(webApp.statusCode).toBe(201);
  webAppId = webApp.json<{ id: string }>().id;
  const apiKey = await send("POST", "/api/api-keys", { bearer: tokenA, body: { name: "secret of A", scopes: ["read"] } });
  expect(apiKey.statusCode).toBe(201);
  apiKeyId = apiKey.json<{ id: string }>().id;
  expect((await send("POST", "/api/projects", { bearer: tokenA, body: { id: "a-project", name: "secret of A" } })).statusCode).toBe(201);
  expect((await send("POST", "/api/projects", { bearer: tokenA, body: { id: "a-project-only", name: "secret of A" } })).statusCode).toBe(201);
  expect((await send("PUT", "/api/projects/a-project-only/bots/a-assistant", { bearer: tokenA })).statusCode).toBe(200);
  expect((await send("POST", "/api/projects/a-project-only/rooms", { bearer: tokenA, body: { id: "a-room", name: "secret of A" } })).statusCode).toBe(201);
  const mcpConfig = { key: "a-mcp-only", config: { transport: "http", url: "http://127.0.0.1:9/secret-of-A" } };
  expect((await send("POST", "/api/mcp-configs", { bearer: tokenA, body: mcpConfig })).statusCode).toBe(201);
  expect((await send("POST", "/api/mcp-configs", { bearer: tokenA, body: { ...mcpConfig, key: "a-mcp" } })).statusCode).toBe(201);
  expect((await send("PATCH", "/api/plugins/clock", { bearer: tokenA, body: { enabled: false } })).statusCode).toBe(200);
  const task = { id: "a-task", title: "secret of A", owner_type: "agent", owner_id: "a-assistant", project_id: "a-project-only" };
  expect((await send("POST", "/api/tasks", { bearer: tokenA, body: task })).statusCode).toBe(201);
  const run = { assistant_id: "a-assistant", thread_id: "a-thread", message: "secret of A", message_id: "a-msg", mode: "wait" };
  expect((await send("POST", "/api/runs", { bearer: tokenA, body: run })).statusCode).toBe(200);
  const schedule = await send("POST", "/api/schedules", {
    bearer: tokenA,
    body: { task_type: "agent-message", delay_ms: 3_600_000, payload: { assistant_id: "a-assistant", thread_id: "a-thread", message: "later" } },
  });
  expect(schedule.statusCode).toBe(201);
  scheduleId = schedule.json<{ id: string }>().id;
  // The same through the LangGraph API: an assistant, a thread and a run of tenant A.
  const assistant = { assistant_id: "a-lg-assistant-only", graph_id: "react", name: "secret of A", metadata: { owner: "secret of A" } };
  expect((await send("POST", "/assistants", { bearer: tokenA, body: assistant })).statusCode).toBe(200);
  // Ids tenant B creates its own records under, in the cases below (ids are per tenant).
  expect((await send("POST", "/assistants", { bearer: tokenA, body: { ...assistant, assistant_id: "a-lg-assistant" } })).statusCode).toBe(200);
  expect((await send("POST", "/threads", { bearer: tokenA, body: { thread_id: "a-lg-thread", metadata: { owner: "secret of A" } } })).statusCode).toBe(200);
  expect((await send("POST", "/threads", { bearer: tokenA, body: { thread_id: "a-lg-thread-only", metadata: { owner: "secret of A" } } })).statusCode).toBe(200);
  const input = { messages: [{ role: "user", content: "secret of A" }] };
  const waited = await send("POST", "/threads/a-lg-thread-only/runs/wait", { bearer: tokenA, body: { assistant_id: "a-lg-assistant-only", input } });
  expect(waited.statusCode).toBe(200);
  lgRunId = String(waited.headers["content-location"]).split("/").at(-1)!;
  for (const namespace of [["a-memory"], ["a-memory-only"]]) {
    expect((await send("PUT", "/store/items", { bearer: tokenA, body: { namespace, key: "a-item", value: { owner: "secret of A" } } })).statusCode).toBe(204);
  }
  const cron = await send("POST", "/threads/a-lg-thread-only/runs/crons", { bearer: tokenA, body: { assistant_id: "a-lg-assistant-only", schedule: "0 * * * *", input, metadata: { owner: "secret of A" } } });
  expect(cron.statusCode).toBe(200);
  lgCronId = cron.json<{ cron_id: string }>().cron_id;
});
afterAll(() => app?.close());

const threadRef = { assistant_id: "a-assistant", thread_id: "a-thread" };

interface RouteCase {
  /** The request, addressing tenant A's records. */
  url: () => string;
  body?: () => unknown;
  /** An event stream: tenant B's answer is read as it arrives. */
  stream?: boolean;
  /** Headers the route needs besides the credential (MCP's Accept). */
  headers?: Record<string, string>;
  /** What tenant B's token gets: refused, or served without a trace of tenant A. */
  foreign: (response: LightMyRequestResponse) => void | Promise<void>;
}

const notFound = (response: LightMyRequestResponse) => {
  expect(response.statusCode).toBe(404);
  expect(response.body).not.toContain("secret of A");
};
const emptyList = (key: string) => (response: LightMyRequestResponse) => {
  expect(response.statusCode).toBe(200);
  expect(response.json<Record<string, unknown[]>>()[key]).toEqual([]);
};

const emptyArray = (response: LightMyRequestResponse) => {
  expect(response.statusCode).toBe(200);
  expect(response.json()).toEqual([]);
};
/** A LangGraph run of tenant A's assistant. */
const lgRun = () => ({ assistant_id: "a-lg-assistant-only", input: { messages: [{ role: "user", content: "intrusion" }] }, multitask_strategy: "enqueue" });

/** One isolation case per route: the completeness test below fails when a route has none. */
const CASES: Record<string, RouteCase> = {
  "GET /api/assistants": { url: () => "/api/assistants", foreign: emptyList("assistants") },
  "GET /api/assistants/:id": { url: () => "/api/assistants/a-assistant", foreign: notFound },
  // Creating under the same id is B's own record: ids are per tenant, and A's stays untouched.
  "POST /api/assistants": {
    url: () => "/api/assistants",
    body: () => ({ id: "a-assistant", name: "B's own" }),
    foreign: (response) => expect(response.statusCode).toBe(201),
  },
  "PATCH /api/assistants/:id": { url: () => "/api/assistants/a-assistant-only", body: () => ({ name: "taken over" }), foreign: notFound },
  "DELETE /api/assistants/:id": { url: () => "/api/assistants/a-assistant-only", foreign: notFound },
  "GET /api/model-providers": { url: () => "/api/model-providers", foreign: emptyList("providers") },
  "GET /api/model-providers/:id": { url: () => "/api/model-providers/a-provider-only", foreign: notFound },
  "POST /api/model-providers": {
    url: () => "/api/model-providers",
    body: () => ({ id: "b-provider", kind: "scripted" }),
    foreign: (response) => expect(response.statusCode).toBe(201),
  },
  "PATCH /api/model-providers/:id": { url: () => "/api/model-providers/a-provider-only", body: () => ({ api_key: "sk-taken over" }), foreign: notFound },
  "DELETE /api/model-providers/:id": { url: () => "/api/model-providers/a-provider-only", foreign: notFound },
  "POST /api/model-providers/:id/test": { url: () => "/api/model-providers/a-provider-only/test", body: () => ({}), foreign: notFound },
  "POST /api/model-providers/:id/discover": { url: () => "/api/model-providers/a-provider-only/discover", body: () => ({}), foreign: notFound },
  "GET /api/model-providers/:id/models": { url: () => "/api/model-providers/a-provider-only/models", foreign: notFound },
  "PATCH /api/model-providers/:id/models/:model": {
    url: () => "/api/model-providers/a-provider-only/models/some-model",
    body: () => ({ enabled: false }),
    foreign: notFound,
  },
  "GET /api/api-keys": { url: () => "/api/api-keys", foreign: emptyList("api_keys") },
  "GET /api/api-keys/:id": { url: () => `/api/api-keys/${apiKeyId}`, foreign: notFound },
  "POST /api/api-keys": { url: () => "/api/api-keys", body: () => ({ name: "B's", scopes: ["read"], assistant_ids: ["a-assistant-only"] }), foreign: notFound },
  "DELETE /api/api-keys/:id": { url: () => `/api/api-keys/${apiKeyId}`, foreign: notFound },
  "GET /api/web-apps": { url: () => "/api/web-apps", foreign: emptyList("web_apps") },
  "GET /api/web-apps/:id": { url: () => `/api/web-apps/${webAppId}`, foreign: notFound },
  // Tenant A's assistant is as missing to B as its web apps.
  "POST /api/web-apps": { url: () => "/api/web-apps", body: () => ({ assistant_id: "a-assistant-only", name: "B's" }), foreign: notFound },
  "PATCH /api/web-apps/:id": { url: () => `/api/web-apps/${webAppId}`, body: () => ({ status: "published" }), foreign: notFound },
  "DELETE /api/web-apps/:id": { url: () => `/api/web-apps/${webAppId}`, foreign: notFound },
  "POST /api/web-apps/:id/secret": { url: () => `/api/web-apps/${webAppId}/secret`, foreign: notFound },
  "POST /api/web-apps/:id/preview-token": { url: () => `/api/web-apps/${webAppId}/preview-token`, body: () => ({}), foreign: notFound },
  "GET /api/mcp-configs": { url: () => "/api/mcp-configs", foreign: emptyList("configs") },
  "GET /api/mcp-configs/:key": { url: () => "/api/mcp-configs/a-mcp-only", foreign: notFound },
  "GET /api/mcp-configs/:key/tools": { url: () => "/api/mcp-configs/a-mcp-only/tools", foreign: notFound },
  // Like assistants: the same key under tenant B is B's own configuration.
  "POST /api/mcp-configs": {
    url: () => "/api/mcp-configs",
    body: () => ({ key: "a-mcp", config: { transport: "http", url: "http://127.0.0.1:9/b" } }),
    foreign: (response) => expect(response.statusCode).toBe(201),
  },
  "PATCH /api/mcp-configs/:key": { url: () => "/api/mcp-configs/a-mcp-only", body: () => ({ selected_tools: ["x"] }), foreign: notFound },
  "DELETE /api/mcp-configs/:key": { url: () => "/api/mcp-configs/a-mcp-only", foreign: notFound },
  "POST /api/mcp-configs/:key/connect": { url: () => "/api/mcp-configs/a-mcp-only/connect", foreign: notFound },
  "POST /api/mcp-configs/:key/disconnect": { url: () => "/api/mcp-configs/a-mcp-only/disconnect", foreign: notFound },
  // B's own catalog: A switched clock off, not B.
  "GET /api/plugins": {
    url: () => "/api/plugins",
    foreign: (response) => {
      expect(response.statusCode).toBe(200);
      expect(response.json().plugins).toContainEqual(expect.objectContaining({ name: "clock", enabled: true }));
    },
  },
  "PATCH /api/plugins/:name": {
    url: () => "/api/plugins/clock",
    body: () => ({ enabled: true }),
    foreign: async (response) => {
      expect(response.json()).toMatchObject({ name: "clock", enabled: true });
      const ofA = await send("GET", "/api/plugins", { bearer: tokenA });
      expect(ofA.json().plugins).toContainEqual(expect.objectContaining({ name: "clock", enabled: false }));
    },
  },
  "GET /api/projects": { url: () => "/api/projects", foreign: emptyList("projects") },
  "GET /api/projects/:id": { url: () => "/api/projects/a-project-only", foreign: notFound },
  "GET /api/projects/:id/bots": { url: () => "/api/projects/a-project-only/bots", foreign: notFound },
  // Like assistants: the same id under tenant B is B's own project.
  "POST /api/projects": {
    url: () => "/api/projects",
    body: () => ({ id: "a-project", name: "B's own" }),
    foreign: (response) => expect(response.statusCode).toBe(201),
  },
  "PATCH /api/projects/:id": { url: () => "/api/projects/a-project-only", body: () => ({ name: "taken over" }), foreign: notFound },
  "DELETE /api/projects/:id": { url: () => "/api/projects/a-project-only", foreign: notFound },
  "PUT /api/projects/:id/bots/:assistantId": { url: () => "/api/projects/a-project-only/bots/a-assistant-only", foreign: notFound },
  "DELETE /api/projects/:id/bots/:assistantId": { url: () => "/api/projects/a-project-only/bots/a-assistant", foreign: notFound },
  "GET /api/projects/:projectId/rooms": { url: () => "/api/projects/a-project-only/rooms", foreign: notFound },
  "POST /api/projects/:projectId/rooms": { url: () => "/api/projects/a-project-only/rooms", body: () => ({ id: "b-room", name: "B's" }), foreign: notFound },
  "POST /api/projects/:projectId/rooms/:roomId/messages": {
    url: () => "/api/projects/a-project-only/rooms/a-room/messages",
    body: () => ({ content: "intrusion" }),
    foreign: notFound,
  },
  "GET /api/projects/:projectId/rooms/:roomId/messages": { url: () => "/api/projects/a-project-only/rooms/a-room/messages", foreign: notFound },
  "GET /api/projects/:projectId/rooms/:roomId/events": { url: () => "/api/projects/a-project-only/rooms/a-room/events", foreign: notFound },
  "GET /api/tasks": { url: () => "/api/tasks", foreign: emptyList("tasks") },
  "GET /api/tasks/:id": { url: () => "/api/tasks/a-task", foreign: notFound },
  "GET /api/tasks/:id/result": { url: () => "/api/tasks/a-task/result", foreign: notFound },
  "GET /api/tasks/:id/runs": { url: () => "/api/tasks/a-task/runs", foreign: notFound },
  // B may not refer to A's project (nor A's assistant, nor A's task as a parent).
  "POST /api/tasks": { url: () => "/api/tasks", body: () => ({ title: "B's own", owner_type: "user", owner_id: "b", project_id: "a-project-only" }), foreign: notFound },
  "PATCH /api/tasks/:id": { url: () => "/api/tasks/a-task", body: () => ({ title: "taken over" }), foreign: notFound },
  "POST /api/tasks/:id/dispatch": { url: () => "/api/tasks/a-task/dispatch", foreign: notFound },
  "POST /api/tasks/:id/cancel": { url: () => "/api/tasks/a-task/cancel", foreign: notFound },
  "POST /api/tasks/:id/resume": { url: () => "/api/tasks/a-task/resume", body: () => ({ resume: "eu-west" }), foreign: notFound },
  "DELETE /api/tasks/:id": { url: () => "/api/tasks/a-task", foreign: notFound },
  // B's own stream: it opens, subscribed to tenant B only.
  "GET /api/tasks/events": {
    url: () => "/api/tasks/events",
    stream: true,
    foreign: async (response) => {
      expect(response.statusCode).toBe(200);
      const body = response.stream();
      const [first] = await body.take(1).toArray();
      body.destroy();
      expect(String(first)).toContain('"subscribed","data":{"tenant_id":"tenant-b"}');
    },
  },
  "GET /api/threads": { url: () => "/api/threads", foreign: emptyList("threads") },
  "GET /api/threads/:id": { url: () => "/api/threads/a-thread", foreign: notFound },
  "POST /api/threads": { url: () => "/api/threads", body: () => ({ thread_id: "b-thread", assistant_id: "a-assistant-only" }), foreign: notFound },
  "DELETE /api/threads/:id": { url: () => "/api/threads/a-thread", foreign: notFound },
  "GET /api/threads/:id/state": { url: () => "/api/threads/a-thread/state", foreign: notFound },
  "GET /api/threads/:id/queue": { url: () => "/api/threads/a-thread/queue", foreign: notFound },
  "GET /api/threads/:id/runs": { url: () => "/api/threads/a-thread/runs", foreign: notFound },
  "POST /api/runs": { url: () => "/api/runs", body: () => ({ ...threadRef, message: "hello", mode: "queue" }), foreign: notFound },
  "POST /api/runs/resume_stream": { url: () => "/api/runs/resume_stream", body: () => ({ ...threadRef, message_id: "a-msg" }), foreign: notFound },
  "POST /api/runs/abort": { url: () => "/api/runs/abort", body: () => threadRef, foreign: notFound },
  "POST /api/runs/recover": { url: () => "/api/runs/recover", body: () => threadRef, foreign: notFound },
  "GET /api/schedules": { url: () => "/api/schedules", foreign: emptyList("schedules") },
  "GET /api/schedules/:id": { url: () => `/api/schedules/${scheduleId}`, foreign: notFound },
  "POST /api/schedules": {
    url: () => "/api/schedules",
    body: () => ({ task_type: "nope", delay_ms: 1_000 }),
    foreign: (response) => expect(response.statusCode).toBe(400),
  },
  "DELETE /api/schedules/:id": { url: () => `/api/schedules/${scheduleId}`, foreign: notFound },
  "POST /api/schedules/:id/pause": { url: () => `/api/schedules/${scheduleId}/pause`, foreign: notFound },
  "POST /api/schedules/:id/resume": { url: () => `/api/schedules/${scheduleId}/resume`, foreign: notFound },
  // The LangGraph API: the same records, the same isolation, in LangGraph's terms.
  "POST /assistants": {
    url: () => "/assistants",
    body: () => ({ assistant_id: "a-lg-assistant", graph_id: "react", name: "B's own" }),
    foreign: async (response) => {
      expect(response.json()).toMatchObject({ name: "B's own", version: 1 });
      expect((await send("GET", "/assistants/a-lg-assistant", { bearer: tokenA })).json()).toMatchObject({ name: "secret of A" });
    },
  },
  "POST /assistants/search": { url: () => "/assistants/search", body: () => ({ metadata: { owner: "secret of A" } }), foreign: emptyArray },
  "POST /assistants/count": {
    url: () => "/assistants/count",
    body: () => ({ metadata: { owner: "secret of A" } }),
    foreign: (response) => expect(response.json()).toBe(0),
  },
  "GET /assistants/:assistant_id": { url: () => "/assistants/a-lg-assistant-only", foreign: notFound },
  "PATCH /assistants/:assistant_id": { url: () => "/assistants/a-assistant-only", body: () => ({ name: "taken over" }), foreign: notFound },
  "DELETE /assistants/:assistant_id": { url: () => "/assistants/a-assistant-only", foreign: notFound },
  "GET /assistants/:assistant_id/graph": { url: () => "/assistants/a-assistant-only/graph", foreign: notFound },
  "GET /assistants/:assistant_id/schemas": { url: () => "/assistants/a-assistant-only/schemas", foreign: notFound },
  "GET /assistants/:assistant_id/subgraphs": { url: () => "/assistants/a-assistant-only/subgraphs", foreign: notFound },
  "GET /assistants/:assistant_id/subgraphs/:namespace": { url: () => "/assistants/a-assistant-only/subgraphs/child", foreign: notFound },
  "POST /assistants/:assistant_id/versions": { url: () => "/assistants/a-assistant-only/versions", body: () => ({}), foreign: notFound },
  "POST /assistants/:assistant_id/latest": { url: () => "/assistants/a-assistant-only/latest", body: () => ({ version: 1 }), foreign: notFound },
  "POST /threads": {
    url: () => "/threads",
    body: () => ({ thread_id: "a-lg-thread", if_exists: "do_nothing" }),
    foreign: (response) => {
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ thread_id: "a-lg-thread", metadata: {}, values: {} });
    },
  },
  "POST /threads/search": { url: () => "/threads/search", body: () => ({ metadata: { owner: "secret of A" } }), foreign: emptyArray },
  "POST /threads/count": {
    url: () => "/threads/count",
    body: () => ({ metadata: { owner: "secret of A" } }),
    foreign: (response) => expect(response.json()).toBe(0),
  },
  "GET /threads/:thread_id": { url: () => "/threads/a-thread", foreign: notFound },
  "PATCH /threads/:thread_id": { url: () => "/threads/a-thread", body: () => ({ metadata: { owner: "B" } }), foreign: notFound },
  "DELETE /threads/:thread_id": { url: () => "/threads/a-thread", foreign: notFound },
  "GET /threads/:thread_id/state": { url: () => "/threads/a-thread/state", foreign: notFound },
  "GET /threads/:thread_id/state/:checkpoint_id": { url: () => "/threads/a-thread/state/a-checkpoint", foreign: notFound },
  "POST /threads/:thread_id/state": { url: () => "/threads/a-thread/state", body: () => ({ values: { messages: [{ role: "user", content: "x" }] } }), foreign: notFound },
  "POST /threads/:thread_id/state/checkpoint": { url: () => "/threads/a-thread/state/checkpoint", body: () => ({ checkpoint: {} }), foreign: notFound },
  "POST /threads/:thread_id/history": { url: () => "/threads/a-thread/history", body: () => ({}), foreign: notFound },
  "POST /threads/:thread_id/runs": { url: () => "/threads/a-thread/runs", body: () => lgRun(), foreign: notFound },
  "POST /threads/:thread_id/runs/stream": { url: () => "/threads/a-thread/runs/stream", body: () => lgRun(), foreign: notFound },
  "POST /threads/:thread_id/runs/wait": { url: () => "/threads/a-thread/runs/wait", body: () => lgRun(), foreign: notFound },
  "GET /threads/:thread_id/runs": { url: () => "/threads/a-lg-thread-only/runs", foreign: notFound },
  "GET /threads/:thread_id/runs/:run_id": { url: () => `/threads/a-lg-thread-only/runs/${lgRunId}`, foreign: notFound },
  "GET /threads/:thread_id/runs/:run_id/join": { url: () => `/threads/a-lg-thread-only/runs/${lgRunId}/join`, foreign: notFound },
  "GET /threads/:thread_id/runs/:run_id/stream": { url: () => `/threads/a-lg-thread-only/runs/${lgRunId}/stream`, foreign: notFound },
  "POST /threads/:thread_id/runs/:run_id/cancel": { url: () => `/threads/a-lg-thread-only/runs/${lgRunId}/cancel`, foreign: notFound },
  "DELETE /threads/:thread_id/runs/:run_id": { url: () => `/threads/a-lg-thread-only/runs/${lgRunId}`, foreign: notFound },
  // A's assistant is not B's: the run is refused, and the thread made for it deleted again.
  "POST /runs/stream": { url: () => "/runs/stream", body: () => lgRun(), foreign: notFound },
  "POST /runs/wait": { url: () => "/runs/wait", body: () => lgRun(), foreign: notFound },
  "GET /runs/:run_id/stream": { url: () => `/runs/${lgRunId}/stream`, foreign: notFound },
  // The store: B's items live beside A's under the same namespaces and keys, never reaching them.
  "PUT /store/items": {
    url: () => "/store/items",
    body: () => ({ namespace: ["a-memory"], key: "a-item", value: { owner: "B" } }),
    foreign: async (response) => {
      expect(response.statusCode).toBe(204);
      expect((await send("GET", "/store/items?namespace=a-memory&key=a-item", { bearer: tokenA })).json()).toMatchObject({ value: { owner: "secret of A" } });
    },
  },
  "GET /store/items": {
    url: () => "/store/items?namespace=a-memory-only&key=a-item",
    foreign: (response) => expect([response.statusCode, response.json()]).toEqual([200, null]),
  },
  "DELETE /store/items": {
    url: () => "/store/items",
    body: () => ({ namespace: ["a-memory-only"], key: "a-item" }),
    foreign: async (response) => {
      expect(response.statusCode).toBe(204);
      expect((await send("GET", "/store/items?namespace=a-memory-only&key=a-item", { bearer: tokenA })).json()).toMatchObject({ value: { owner: "secret of A" } });
    },
  },
  "POST /store/items/search": { url: () => "/store/items/search", body: () => ({ namespace_prefix: ["a-memory-only"] }), foreign: emptyList("items") },
  "POST /store/namespaces": { url: () => "/store/namespaces", body: () => ({ prefix: ["a-memory-only"] }), foreign: emptyList("namespaces") },
  "POST /runs": { url: () => "/runs", body: () => lgRun(), foreign: notFound },
  "POST /runs/batch": { url: () => "/runs/batch", body: () => [lgRun()], foreign: notFound },
  "POST /threads/:thread_id/copy": { url: () => "/threads/a-lg-thread-only/copy", foreign: notFound },
  "GET /threads/:thread_id/stream": { url: () => "/threads/a-lg-thread-only/stream", foreign: notFound },
  "POST /threads/:thread_id/runs/crons": { url: () => "/threads/a-lg-thread-only/runs/crons", body: () => ({ ...lgRun(), schedule: "0 * * * *" }), foreign: notFound },
  "POST /runs/crons": { url: () => "/runs/crons", body: () => ({ ...lgRun(), schedule: "0 * * * *" }), foreign: notFound },
  "POST /runs/crons/search": { url: () => "/runs/crons/search", body: () => ({}), foreign: emptyArray },
  "POST /runs/crons/count": { url: () => "/runs/crons/count", body: () => ({}), foreign: (response) => expect(response.json()).toBe(0) },
  "PATCH /runs/crons/:cron_id": { url: () => `/runs/crons/${lgCronId}`, body: () => ({ enabled: false }), foreign: notFound },
  "DELETE /runs/crons/:cron_id": { url: () => `/runs/crons/${lgCronId}`, foreign: notFound },
  // MCP: tenant B's tool list holds none of tenant A's assistants (mcpServer.test.ts calls them too).
  "POST /mcp": {
    url: () => "/mcp",
    body: () => ({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    headers: { accept: "application/json, text/event-stream" },
    foreign: (response) => {
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain('"result":{"tools":[');
      expect(response.body).not.toContain("secret of A");
    },
  },
  "GET /mcp": { url: () => "/mcp", foreign: (response) => expect(response.statusCode).toBe(405) },
  "DELETE /mcp": { url: () => "/mcp", foreign: (response) => expect(response.statusCode).toBe(405) },
  "GET /.well-known/agent-card.json": { url: () => "/.well-known/agent-card.json?assistant_id=a-lg-assistant-only", foreign: notFound },
  "GET /a2a/:assistant_id/.well-known/agent-card.json": { url: () => "/a2a/a-lg-assistant-only/.well-known/agent-card.json", foreign: notFound },
  "POST /a2a/:assistant_id": { url: () => "/a2a/a-lg-assistant-only", body: () => ({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }), foreign: notFound },
  // Cluster-wide, for admins of any tenant: it shows replicas and lease counts, nothing of a tenant.
  "GET /api/cluster": {
    url: () => "/api/cluster",
    foreign: (response) => {
      expect(response.statusCode).toBe(200);
      expect(response.body).not.toMatch(/tenant-a|a-thread|a-assistant|secret of A/);
    },
  },
};

const routeKeys = () => apiRoutesOf(app).map(({ method, url }) => `${method} ${url}`);

describe("every protected route (/api and the LangGraph API) with AUTH_REQUIRED=true", () => {
  it("has an isolation case, and every case names a route that exists", () => {
    expect(routeKeys().sort()).toEqual(Object.keys(CASES).sort());
  });

  it.each(Object.keys(CASES))("%s refuses a missing, forged or expired token, another tenant and a conflicting header", async (key) => {
    const [method] = key.split(" ");
    const { url, body, stream, headers = {}, foreign } = CASES[key];
    const request = (options: { bearer?: string; headers?: Record<string, string> }) => send(method, url(), { ...options, headers: { ...headers, ...options.headers }, body: body?.() });

    const missing = await request({});
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toMatchObject({ code: "UNAUTHENTICATED" });
    expect(missing.headers["www-authenticate"]).toMatch(/^Bearer realm=/);

    const forged = await new SignJWT({ tenant_id: "tenant-a", scope: "admin" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("mallory")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode("another-secret-of-at-least-32-characters"));
    expect((await request({ bearer: forged })).json()).toMatchObject({ code: "UNAUTHENTICATED" });

    const expired = await token("tenant-a", "admin", "-1m");
    const late = await request({ bearer: expired });
    expect(late.statusCode).toBe(401);
    expect(late.json()).toMatchObject({ code: "TOKEN_EXPIRED" });

    const mismatch = await request({ bearer: tokenA, headers: { "x-tenant-id": "tenant-b" } });
    expect(mismatch.statusCode).toBe(403);
    expect(mismatch.json()).toMatchObject({ code: "TENANT_MISMATCH" });

    await foreign(await send(method, url(), { bearer: tokenB, body: body?.(), headers, stream }));
  });
});

describe("scopes", () => {
  it("lets a read-only token read but not write, and keeps recovery for admins", async () => {
    const reader = await token("tenant-a", "read");
    expect((await send("GET", "/api/threads/a-thread", { bearer: reader })).statusCode).toBe(200);
    const write = await send("POST", "/api/threads", { bearer: reader, body: { assistant_id: "a-assistant" } });
    expect(write.statusCode).toBe(403);
    expect(write.json()).toMatchObject({ code: "FORBIDDEN" });
    const writer = await token("tenant-a", "write");
    expect((await send("POST", "/api/runs/recover", { bearer: writer, body: threadRef })).json()).toMatchObject({ code: "FORBIDDEN" });
    expect((await send("POST", "/api/runs/recover", { bearer: tokenA, body: threadRef })).statusCode).toBe(200);
    expect((await send("GET", "/api/cluster", { bearer: writer })).json()).toMatchObject({ code: "FORBIDDEN" });
    expect((await send("GET", "/api/cluster", { bearer: tokenA })).statusCode).toBe(200);
    expect((await send("GET", "/api/plugins", { bearer: reader })).statusCode).toBe(200);
    expect((await send("PATCH", "/api/plugins/echo", { bearer: writer, body: { enabled: false } })).json()).toMatchObject({ code: "FORBIDDEN" });
  });
});

describe("token claims", () => {
  /** A token of tenant A signed with the gateway's secret, with exactly these extra claims (`exp` when `expires`). */
  const signed = (claims: Record<string, unknown>, expires = true) => {
    const jwt = new SignJWT({ tenant_id: "tenant-a", ...claims }).setProtectedHeader({ alg: "HS256" }).setSubject("tester");
    return (expires ? jwt.setExpirationTime("1h") : jwt).sign(new TextEncoder().encode(SECRET));
  };
  const createThread = async (bearer: string) => send("POST", "/api/threads", { bearer, body: { assistant_id: "a-assistant" } });

  it.each<[string, unknown, string]>([
    ["unknown words", "superuser root", "superuser"],
    ["a known word in another case", "READ", "READ"],
    ["an unknown word beside a known one", "read Write", "Write"],
    ["a list with an unknown word", ["write", "owner"], "owner"],
    ["a list with a non-string", ["read", 5], "5"],
    ["a number", 42, "space-separated"],
    ["an empty scope", "", "names no scope"],
    ["an empty list", [], "names no scope"],
  ])("refuses a scope claim of %s with 401 UNAUTHENTICATED, saying which", async (_label, scope, named) => {
    const response = await createThread(await signed({ scope }));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: "UNAUTHENTICATED" });
    expect(response.json().error).toContain(named);
    expect(response.headers["www-authenticate"]).toMatch(/error="invalid_token"/);
  });

  it.each<[string, unknown, number]>([
    ["space-separated words (the widest counts)", "read  write", 201],
    ["a list", ["read", "admin"], 201],
    ["read alone", "read", 403],
    ["no scope claim (write)", undefined, 201],
  ])("grants %s", async (_label, scope, status) => {
    expect((await createThread(await signed(scope === undefined ? {} : { scope }))).statusCode).toBe(status);
  });

  it("refuses a token without exp unless AUTH_ALLOW_NO_EXPIRY=true", async () => {
    const endless = await signed({ scope: "read" }, false);
    const refused = await send("GET", "/api/threads", { bearer: endless });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: "UNAUTHENTICATED" });
    expect(refused.json().error).toContain("AUTH_ALLOW_NO_EXPIRY");
    const lenient = await buildGateway(loadConfig({ LOG_LEVEL: "silent", AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET, AUTH_ALLOW_NO_EXPIRY: "true" }));
    try {
      const accepted = await lenient.inject({ method: "GET", url: "/api/threads", headers: { authorization: `Bearer ${endless}` } });
      expect(accepted.statusCode).toBe(200);
      const expired = await lenient.inject({ method: "GET", url: "/api/threads", headers: { authorization: `Bearer ${await token("tenant-a", "read", "-1m")}` } });
      expect(expired.json()).toMatchObject({ code: "TOKEN_EXPIRED" });
    } finally {
      await lenient.close();
    }
  });
});

describe("the token in x-api-key, as LangGraph SDKs send their apiKey", () => {
  it("authenticates like a bearer token, on the LangGraph API and on /api", async () => {
    const viaApiKey = await send("GET", "/assistants/a-lg-assistant-only", { headers: { "x-api-key": tokenA } });
    expect(viaApiKey.statusCode).toBe(200);
    expect((await send("GET", "/api/threads/a-thread", { headers: { "x-api-key": tokenA } })).statusCode).toBe(200);
    // Tenant B's key reaches tenant B's records only.
    expect((await send("GET", "/assistants/a-lg-assistant-only", { headers: { "x-api-key": tokenB } })).statusCode).toBe(404);
  });

  it("is refused when forged, expired or malformed, and the Authorization header wins when both are sent", async () => {
    const expired = await send("GET", "/threads/a-lg-thread-only", { headers: { "x-api-key": await token("tenant-a", "admin", "-1m") } });
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toMatchObject({ code: "TOKEN_EXPIRED", detail: expect.any(String) });
    for (const apiKey of ["not a token", "abc.def", "x".repeat(10_000)]) {
      const refused = await send("GET", "/threads/a-lg-thread-only", { headers: { "x-api-key": apiKey } });
      expect(refused.statusCode).toBe(401);
      expect(refused.headers["www-authenticate"]).toMatch(/error="invalid_token"/);
    }
    const both = await send("GET", "/threads/a-lg-thread-only", { bearer: tokenB, headers: { "x-api-key": tokenA } });
    expect(both.statusCode).toBe(404);
  });

  it("meets the route's scope like any token", async () => {
    const reader = await token("tenant-a", "read");
    expect((await send("POST", "/threads/search", { headers: { "x-api-key": reader }, body: {} })).statusCode).toBe(200);
    const write = await send("POST", "/threads", { headers: { "x-api-key": reader }, body: {} });
    expect(write.statusCode).toBe(403);
    expect(write.json()).toMatchObject({ code: "FORBIDDEN" });
  });
});

describe("malformed Authorization headers", () => {
  it.each<[string, () => Promise<string>]>([
    ["another scheme", async () => `Basic ${Buffer.from("a:b").toString("base64")}`],
    ["an empty bearer", async () => "Bearer "],
    ["a huge header", async () => `Bearer ${"a".repeat(10_000)}`],
    ["not a JWT", async () => "Bearer abc.def"],
    ["alg: none", async () => `Bearer ${new UnsecuredJWT({ tenant_id: "tenant-a" }).setSubject("mallory").encode()}`],
    ["a bad tenant_id claim", async () => `Bearer ${await token("a b")}`],
  ])("refuses %s with 401 UNAUTHENTICATED", async (_label, header) => {
    const response = await app.inject({ method: "GET", url: "/api/threads", headers: { authorization: await header() } });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: "UNAUTHENTICATED" });
  });

  it("refuses an HS256 token signed with the public key of an RS256 deployment (algorithm confusion)", async () => {
    const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const pem = publicKey.export({ type: "spki", format: "pem" }).toString();
    const folder = await mkdtemp(join(tmpdir(), "lattice-auth-"));
    const keyFile = join(folder, "public.pem");
    await writeFile(keyFile, pem);
    const rsaGateway = await buildGateway(loadConfig({ LOG_LEVEL: "silent", AUTH_REQUIRED: "true", AUTH_PUBLIC_KEY_FILE: keyFile }));
    try {
      const confused = await new SignJWT({ tenant_id: "tenant-a" }).setProtectedHeader({ alg: "HS256" }).setSubject("mallory").setExpirationTime("1h").sign(new TextEncoder().encode(pem));
      const response = await rsaGateway.inject({ method: "GET", url: "/api/threads", headers: { authorization: `Bearer ${confused}` } });
      expect(response.statusCode).toBe(401);
    } finally {
      await rsaGateway.close();
      await rm(folder, { recursive: true });
    }
  });
});

describe("other keys", () => {
  it("verifies RS256 tokens against a JWKS URL, and refuses a key id the set does not hold", async () => {
    const { publicKey, privateKey } = await generateKeyPair("RS256");
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" }] };
    const server = createServer((_request, response) => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(jwks)));
    await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    const jwksGateway = await buildGateway(loadConfig({ LOG_LEVEL: "silent", AUTH_REQUIRED: "true", AUTH_JWKS_URL: url }));
    const signed = (kid: string) =>
      new SignJWT({ tenant_id: "tenant-a" }).setProtectedHeader({ alg: "RS256", kid }).setSubject("alice").setExpirationTime("1h").sign(privateKey);
    try {
      const ok = await jwksGateway.inject({ method: "GET", url: "/api/threads", headers: { authorization: `Bearer ${await signed("k1")}` } });
      expect(ok.statusCode).toBe(200);
      const unknown = await jwksGateway.inject({ method: "GET", url: "/api/threads", headers: { authorization: `Bearer ${await signed("k2")}` } });
      expect(unknown.statusCode).toBe(401);
    } finally {
      await jwksGateway.close();
      await new Promise((closed) => server.close(closed));
    }
  });
});

describe("an Authorization header with a bare CR", () => {
  it("is refused by the HTTP parser before any route runs", async () => {
    const address = await app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = new URL(address);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(`GET /api/threads HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${tokenA}\rx-tenant-id: tenant-b\r\n\r\n`);
      });
      let received = "";
      socket.on("data", (chunk) => (received += chunk.toString()));
      socket.on("end", () => resolve(received));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
  });
});
