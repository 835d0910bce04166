import { DefaultScheduleClient, InMemoryScheduleStore } from "@axiom-lattice/core";
import { eventually } from "@axiom-lattice/testing";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ScheduledAgentMessage, buildGateway, loadConfig } from "../src";
import { useDocumentedResponses } from "./documentedResponses";

let app: FastifyInstance;
let client: DefaultScheduleClient;
let store: InMemoryScheduleStore;
let enqueued: ScheduledAgentMessage[];
let enqueueFailure: Error | undefined;

const checkResponses = useDocumentedResponses();

beforeAll(async () => {
  store = new InMemoryScheduleStore();
  client = new DefaultScheduleClient({ store, replicaId: "test", retryBackoff: { baseMs: 20 } });
  app = await buildGateway(loadConfig({ LOG_LEVEL: "silent" }), {
    schedules: {
      client,
      enqueueMessage: async (message) => {
        if (enqueueFailure) throw enqueueFailure;
        enqueued.push(message);
      },
    },
  });
  checkResponses(app);
  // The assistant agent messages name, in each tenant the tests schedule in.
  for (const tenant of ["default", "acme", "owner", "intruder", "paged"]) {
    const created = await app.inject({
      method: "POST",
      url: "/api/assistants",
      headers: { "content-type": "application/json", "x-tenant-id": tenant },
      payload: JSON.stringify({ id: "assistant-1", name: "Morning briefing" }),
    });
    expect(created.statusCode).toBe(201);
  }
});

beforeEach(() => {
  enqueued = [];
  enqueueFailure = undefined;
});

afterAll(async () => {
  await client.stop();
  await app.close();
});

const agentMessage = { assistant_id: "assistant-1", thread_id: "thread-1", message: "Good morning! What is on today?" };

const post = (url: string, payload?: object, headers: Record<string, string> = {}) =>
  app.inject({ method: "POST", url, headers, ...(payload ? { payload } : {}) });

describe("/api/schedules", () => {
  it("creates a daily agent-message cron schedule in a time zone and reads it back", async () => {
    const response = await post(
      "/api/schedules",
      { task_type: "agent-message", cron_expression: "0 9 * * *", timezone: "Europe/Berlin", payload: agentMessage },
      { "x-tenant-id": "acme" },
    );
    expect(response.statusCode).toBe(201);
    const created = response.json();
    expect(created).toMatchObject({
      tenant_id: "acme",
      task_type: "agent-message",
      execution_type: "cron",
      cron_expression: "0 9 * * *",
      timezone: "Europe/Berlin",
      status: "pending",
      catch_up: "once",
      run_count: 0,
      retry_count: 0,
      assistant_id: "assistant-1",
      thread_id: "thread-1",
      payload: agentMessage,
    });
    // Every key of the answer is snake_case; the payload is as given.
    expect(Object.keys(created).filter((key) => /[A-Z]/.test(key))).toEqual([]);
    // The next fire is 09:00 Berlin time, as an ISO string.
    expect(new Date(created.next_run_at).toLocaleTimeString("en-GB", { timeZone: "Europe/Berlin" })).toBe("09:00:00");

    const read = await app.inject({ method: "GET", url: `/api/schedules/${created.id}`, headers: { "x-tenant-id": "acme" } });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(created);
    const list = await app.inject({ method: "GET", url: "/api/schedules", headers: { "x-tenant-id": "acme" } });
    expect(list.json().schedules.map((task: { id: string }) => task.id)).toContain(created.id);
  });

  it("pauses, resumes and cancels (DELETE), refusing changes a status does not allow", async () => {
    const created = (await post("/api/schedules", { task_type: "agent-message", cron_expression: "*/5 * * * *", payload: agentMessage })).json();
    const url = `/api/schedules/${created.id}`;
    expect((await post(`${url}/pause`)).json()).toMatchObject({ status: "paused" });
    expect((await post(`${url}/resume`)).json()).toMatchObject({ status: "pending" });
    const cancelled = await app.inject({ method: "DELETE", url });
    expect(cancelled.statusCode).toBe(204);
    expect(cancelled.body).toBe("");
    expect((await app.inject({ method: "GET", url })).json()).toMatchObject({ status: "cancelled" });
    const resumed = await post(`${url}/resume`);
    expect(resumed.statusCode).toBe(409);
    expect(resumed.json()).toMatchObject({ success: false, code: "INVALID_SCHEDULE_STATE" });
  });

  it("keeps schedules within their tenant: another tenant gets 404 and an empty list", async () => {
    const created = (await post("/api/schedules", { task_type: "agent-message", delay_ms: 3_600_000, payload: agentMessage }, { "x-tenant-id": "owner" })).json();
    const other = { "x-tenant-id": "intruder" };
    for (const [method, url] of [
      ["GET", `/api/schedules/${created.id}`],
      ["DELETE", `/api/schedules/${created.id}`],
      ["POST", `/api/schedules/${created.id}/pause`],
      ["POST", `/api/schedules/${created.id}/resume`],
    ] as const) {
      const response = await app.inject({ method, url, headers: other });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json()).toMatchObject({ success: false, code: "NOT_FOUND" });
    }
    expect((await app.inject({ method: "GET", url: "/api/schedules", headers: other })).json()).toEqual({ schedules: [], next_cursor: null, has_more: false });
    expect((await client.get(created.id))?.status).toBe("pending");
  });

  it("lists a tenant's schedules a page at a time, oldest first, each once", async () => {
    const headers = { "x-tenant-id": "paged" };
    const created: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      created.push((await post("/api/schedules", { task_type: "agent-message", delay_ms: 3_600_000 + i, payload: agentMessage }, headers)).json().id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? "limit=3" : `limit=3&cursor=${encodeURIComponent(cursor)}`;
      const response = await app.inject({ method: "GET", url: `/api/schedules?${query}`, headers });
      expect(response.statusCode).toBe(200);
      const page = response.json();
      expect(Object.keys(page).sort()).toEqual(["has_more", "next_cursor", "schedules"]);
      expect(page.has_more).toBe(page.next_cursor !== null);
      seen.push(...page.schedules.map((schedule: { id: string }) => schedule.id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    // Oldest first: created within one millisecond, schedules are ordered by id.
    const whole = (await app.inject({ method: "GET", url: "/api/schedules?limit=1000", headers })).json();
    expect(seen).toEqual(whole.schedules.map((schedule: { id: string }) => schedule.id));
    expect([...seen].sort()).toEqual([...created].sort());
    expect(pages).toBe(3);
  });

  it.each([
    ["a cursor no page returned", "cursor=garbage", "INVALID_CURSOR"],
    ["a limit of 0", "limit=0", "INVALID_REQUEST"],
    ["a limit above 1000", "limit=1001", "INVALID_REQUEST"],
    ["an unknown query parameter", "offset=5", "INVALID_REQUEST"],
  ])("refuses a list with %s: 400", async (_label, query, code) => {
    const response = await app.inject({ method: "GET", url: `/api/schedules?${query}` });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, code, error: expect.any(String) });
  });

  it("fires an agent-message schedule by enqueueing its message once, with a per-fire message id", async () => {
    const created = (await post("/api/schedules", { task_type: "agent-message", delay_ms: 30, payload: agentMessage }, { "x-tenant-id": "acme" })).json();
    await eventually("the fire to complete", async () => (await client.get(created.id))?.status === "completed", { timeoutMs: 5_000 });
    expect(enqueued).toEqual([
      {
        tenantId: "acme",
        assistantId: agentMessage.assistant_id,
        threadId: agentMessage.thread_id,
        message: agentMessage.message,
        messageId: `schedule.${created.id}.${Date.parse(created.execute_at)}`,
        signal: expect.any(AbortSignal),
      },
    ]);
  });

  it("retries a failed enqueue and fails the schedule with its error once retries run out", async () => {
    enqueueFailure = Object.assign(new Error("queue unavailable"), { code: "QUEUE_FULL" });
    const failing = (await post("/api/schedules", { task_type: "agent-message", delay_ms: 0, max_retries: 1, payload: agentMessage })).json();
    await eventually("the retries to run out", async () => (await client.get(failing.id))?.status === "failed", { timeoutMs: 5_000 });
    expect(await client.get(failing.id)).toMatchObject({ retryCount: 1, runCount: 0, lastError: "queue unavailable" });
  });

  describe("refuses bad input with 400 and a stable code, storing nothing", () => {
    const cron = { task_type: "agent-message", cron_expression: "0 9 * * *", payload: agentMessage };
    it.each([
      ["an invalid cron expression", { ...cron, cron_expression: "0 25 * * *" }, "INVALID_CRON"],
      ["a cron expression with too few fields", { ...cron, cron_expression: "every morning" }, "INVALID_CRON"],
      ["an unknown time zone", { ...cron, timezone: "Europe/Atlantis" }, "INVALID_TIMEZONE"],
      ["a past execute_at with catch-up skip", { task_type: "agent-message", execute_at: "2020-01-01T09:00:00Z", catch_up: "skip", payload: agentMessage }, "EXECUTE_AT_IN_PAST"],
      ["a past execute_at with catch-up once", { task_type: "agent-message", execute_at: "2020-01-01T09:00:00Z", catch_up: "once", payload: agentMessage }, "EXECUTE_AT_IN_PAST"],
      ["an execute_at a minute ago", { task_type: "agent-message", execute_at: Date.now() - 60_000, payload: agentMessage }, "EXECUTE_AT_IN_PAST"],
      ["an unknown task type", { ...cron, task_type: "launch-rockets" }, "UNKNOWN_TASK_TYPE"],
      ["a string delay", { task_type: "agent-message", delay_ms: "soon", payload: agentMessage }, "INVALID_REQUEST"],
      ["neither execute_at, delay_ms nor cron_expression", { task_type: "agent-message", payload: agentMessage }, "INVALID_SCHEDULE"],
      ["both execute_at and delay_ms", { task_type: "agent-message", delay_ms: 5, execute_at: Date.now() + 60_000, payload: agentMessage }, "INVALID_SCHEDULE"],
      ["an execute_at that is not a date", { task_type: "agent-message", execute_at: "tomorrow", payload: agentMessage }, "INVALID_REQUEST"],
      ["a cron schedule with execute_at", { ...cron, execute_at: "2031-01-01T09:00:00Z" }, "INVALID_REQUEST"],
      ["a missing task_type", { cron_expression: "0 9 * * *", payload: agentMessage }, "INVALID_REQUEST"],
      ["a missing message", { ...cron, payload: { assistant_id: "a", thread_id: "t" } }, "INVALID_REQUEST"],
      ["a non-string message", { ...cron, payload: { ...agentMessage, message: 42 } }, "INVALID_REQUEST"],
      ["a malformed thread id", { ...cron, payload: { ...agentMessage, thread_id: "../etc" } }, "INVALID_REQUEST"],
      ["a zero max_runs", { ...cron, max_runs: 0 }, "INVALID_REQUEST"],
      ["an unknown catch-up policy", { ...cron, catch_up: "all" }, "INVALID_REQUEST"],
      ["an unknown field", { ...cron, priority: "high" }, "INVALID_REQUEST"],
      ["an array body", [cron], "INVALID_REQUEST"],
    ])("%s", async (_label, body, code) => {
      const before = await store.countTasks();
      const response = await post("/api/schedules", body);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ success: false, code, error: expect.any(String) });
      expect(await store.countTasks()).toBe(before);
    });

    it("refuses an agent message for an assistant the tenant does not have, when it is written", async () => {
      const before = await store.countTasks();
      for (const [assistant, tenant] of [["no-such-assistant", "default"], ["assistant-1", "stranger"]]) {
        const response = await post("/api/schedules", { ...cron, payload: { ...agentMessage, assistant_id: assistant } }, { "x-tenant-id": tenant });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject({ code: "NOT_FOUND", error: `Assistant ${assistant} not found` });
      }
      expect(await store.countTasks()).toBe(before);
    });

    it("names the API's fields, not the library's, in what it says", async () => {
      const neither = await post("/api/schedules", { task_type: "agent-message", payload: agentMessage });
      expect(neither.json()).toMatchObject({ code: "INVALID_SCHEDULE", error: "Give exactly one of execute_at and delay_ms, or a cron_expression" });
      const past = await post("/api/schedules", { task_type: "agent-message", execute_at: "2020-01-01T09:00:00Z", payload: agentMessage });
      expect(past.json()).toMatchObject({ code: "EXECUTE_AT_IN_PAST", error: expect.stringMatching(/^The fire time \d{4}-\d\d-\d\dT[\d:.]+Z is \d+ s in the past \(it is now \d{4}-\d\d-\d\dT[\d:.]+Z\); a delay of 0 fires now$/) });
    });

    it("a malformed x-tenant-id header", async () => {
      const before = await store.countTasks();
      for (const tenant of ["has space", "x".repeat(65), "semi;colon"]) {
        const response = await post("/api/schedules", cron, { "x-tenant-id": tenant });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ success: false, code: "INVALID_TENANT" });
      }
      expect((await app.inject({ method: "GET", url: "/api/schedules", headers: { "x-tenant-id": "a/b" } })).statusCode).toBe(400);
      expect(await store.countTasks()).toBe(before);
    });

    it("a malformed schedule id answers 400, an unknown one 404", async () => {
      expect((await app.inject({ method: "GET", url: "/api/schedules/bad%20id" })).json()).toMatchObject({ code: "INVALID_REQUEST" });
      expect((await app.inject({ method: "GET", url: "/api/schedules/no-such-id" })).statusCode).toBe(404);
    });
  });
});
