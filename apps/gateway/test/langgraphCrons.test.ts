import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { gatewayContextOf } from "../src/context/gatewayContext";
import { RUN_OWN_THREAD_TTL_MINUTES } from "../src/defaults";
import { cronFireRunId, cronFireThreadId, langgraphCronFire } from "../src/langgraph/cronFire";
import { useGateway } from "./support";

// The LangGraph API's crons through HTTP, every answer checked against the OpenAPI document. The
// SDK-driven cases (e2e/harness/langgraphCronCases.ts) drive the same routes through
// @langchain/langgraph-sdk, on one gateway and on replicas; this file pins shapes and refusals.
const ASSISTANT = "lg-cron-runner";
const headers = { "x-tenant-id": "lg-crons" };
const gateway = useGateway(async ({ post }) => {
  expect((await post("/assistants", { assistant_id: ASSISTANT, graph_id: "react", context: { tools: ["echo"] } }, headers)).statusCode).toBe(200);
});

const post = (url: string, body: unknown, as = headers) => gateway.post(url, body, as);
const get = (url: string) => gateway.get(url, headers);
const patch = (url: string, body: unknown, as = headers) =>
  gateway.app.inject({ method: "PATCH", url, headers: { ...as, "content-type": "application/json" }, payload: JSON.stringify(body) });
const say = (content: string) => ({ messages: [{ role: "user", content }] });
const newThread = async () => (await post("/threads", {})).json<{ thread_id: string }>().thread_id;
const EVERY_SECOND = "* * * * * *";

/** Polls `read` until it answers something defined (a bounded wait, never a timed assertion). */
async function eventually<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const value = await read();
    if (value !== undefined) return value;
    await sleep(100);
  }
  throw new Error(`never: ${what}`);
}

describe("LangGraph API: crons", () => {
  it("a thread's cron queues its run on each fire, labelled with the cron and the fire's time", async () => {
    const thread = await newThread();
    const created = await post(`/threads/${thread}/runs/crons`, { assistant_id: ASSISTANT, schedule: EVERY_SECOND, input: say("tick"), metadata: { job: "daily" }, multitask_strategy: "enqueue" });
    expect(created.statusCode).toBe(200);
    const cron = created.json();
    expect(cron).toMatchObject({
      assistant_id: ASSISTANT,
      thread_id: thread,
      schedule: EVERY_SECOND,
      end_time: null,
      user_id: null,
      metadata: { job: "daily" },
      enabled: true,
      payload: { assistant_id: ASSISTANT, input: say("tick"), metadata: { job: "daily" }, multitask_strategy: "enqueue" },
    });
    expect(cron).not.toHaveProperty("on_run_completed");
    // The next whole second: computed a moment before the row's created_at is written, so on a busy
    // machine the second may turn in between.
    const nextRun = Date.parse(cron.next_run_date);
    expect(nextRun % 1000).toBe(0);
    expect(Math.abs(nextRun - Date.parse(cron.created_at))).toBeLessThanOrEqual(1000);

    const runs = await eventually(async () => {
      const listed = (await get(`/threads/${thread}/runs`)).json<Array<{ status: string; metadata: Record<string, unknown> }>>();
      return listed.some((run) => run.status === "success") ? listed : undefined;
    }, "a fired run");
    expect(runs[0].metadata).toMatchObject({ job: "daily", cron_id: cron.cron_id, cron_scheduled_at: expect.any(String) });
    expect((await gateway.del(`/runs/crons/${cron.cron_id}`, headers)).statusCode).toBe(204);
    expect((await post("/runs/crons/search", { thread_id: thread })).json()).toEqual([]);
  });

  it("a cron without a thread runs each fire on a thread of its own, kept with on_run_completed keep", async () => {
    const cron = (await post("/runs/crons", { assistant_id: ASSISTANT, schedule: EVERY_SECOND, input: say("alone"), on_run_completed: "keep" })).json();
    expect(cron).toMatchObject({ thread_id: null, on_run_completed: "keep" });
    const [kept] = await eventually(async () => {
      const threads = (await post("/threads/search", { metadata: { cron_id: cron.cron_id } })).json<Array<{ thread_id: string; status: string }>>();
      return threads.find((thread) => thread.status === "idle") ? threads.filter((thread) => thread.status === "idle") : undefined;
    }, "a kept thread");
    expect((await get(`/threads/${kept.thread_id}/state`)).json().values.messages.map((message: { content: string }) => message.content)).toEqual(["alone", "echo: alone"]);
    expect((await gateway.del(`/runs/crons/${cron.cron_id}`, headers)).statusCode).toBe(204);
  });

  it("a fire run again (its replica died before recording it) queues its run once, under the fire's id", async () => {
    for (const threadId of [await newThread(), undefined]) {
      const url = threadId ? `/threads/${threadId}/runs/crons` : "/runs/crons";
      const cron = (await post(url, { assistant_id: ASSISTANT, schedule: "0 0 1 1 *", input: say("once"), on_run_completed: threadId ? undefined : "keep" })).json();
      const context = gatewayContextOf(gateway.app);
      const task = (await context.schedules.get(cron.cron_id))!;
      const fire = langgraphCronFire(context);
      const scheduledAt = Date.parse("2030-01-01T00:00:00Z");
      for (let attempt = 0; attempt < 2; attempt++) await fire({ task, scheduledAt, replicaId: "test", signal: new AbortController().signal });
      const threads = threadId ? [threadId] : (await post("/threads/search", { metadata: { cron_id: cron.cron_id } })).json<Array<{ thread_id: string }>>().map((thread) => thread.thread_id);
      const runs = (await Promise.all(threads.map(async (id) => (await get(`/threads/${id}/runs`)).json<Array<{ run_id: string }>>()))).flat();
      expect(runs.map((run) => run.run_id)).toEqual([cronFireRunId(cron.cron_id, scheduledAt)]);
      // Both attempts of a fire without a thread use the fire's thread: one thread, the run's.
      expect(threads).toEqual([threadId ?? cronFireThreadId(cron.cron_id, scheduledAt)]);
      expect((await gateway.del(`/runs/crons/${cron.cron_id}`, headers)).statusCode).toBe(204);
    }
  });

  it("a fire of a cron without a thread run again after its replica died having made the fire's thread queues its run there; the thread goes once the run ended, and has a TTL till then", async () => {
    const cron = (await post("/runs/crons", { assistant_id: ASSISTANT, schedule: "0 0 1 1 *", input: say("/sleep 300") })).json();
    const context = gatewayContextOf(gateway.app);
    const task = (await context.schedules.get(cron.cron_id))!;
    const scheduledAt = Date.parse("2030-01-01T00:00:00Z");
    const fireThread = cronFireThreadId(cron.cron_id, scheduledAt);
    // What the dead attempt left: the fire's thread, no run.
    expect((await post("/threads", { thread_id: fireThread, metadata: { cron_id: cron.cron_id } })).statusCode).toBe(200);
    await langgraphCronFire(context)({ task, scheduledAt, replicaId: "test", signal: new AbortController().signal });
    expect((await post("/threads/search", { metadata: { cron_id: cron.cron_id } })).json<Array<{ thread_id: string }>>().map((thread) => thread.thread_id)).toEqual([fireThread]);
    // on_run_completed delete (the default): the thread goes, run and all, once the run ended.
    await eventually(async () => ((await get(`/threads/${fireThread}`)).statusCode === 404 ? true : undefined), "the fire's thread deleted");
    // A fire's own thread made by the fire carries a TTL: the expiry sweep deletes it should no replica live to.
    const next = scheduledAt + 60_000;
    await langgraphCronFire(context)({ task, scheduledAt: next, replicaId: "test", signal: new AbortController().signal });
    expect((await context.stores.threads.getThread(headers["x-tenant-id"], cronFireThreadId(cron.cron_id, next)))?.ttlMinutes).toBe(RUN_OWN_THREAD_TTL_MINUTES);
    await eventually(async () => ((await get(`/threads/${cronFireThreadId(cron.cron_id, next)}`)).statusCode === 404 ? true : undefined), "the next fire's thread deleted");
    expect((await gateway.del(`/runs/crons/${cron.cron_id}`, headers)).statusCode).toBe(204);
  });

  it("searches (filters, sort, select, pagination) and counts, updates and deletes, within the tenant", async () => {
    const [first, second] = [await newThread(), await newThread()];
    const hourly = (await post(`/threads/${first}/runs/crons`, { assistant_id: ASSISTANT, schedule: "0 * * * *", input: say("a") })).json();
    const daily = (await post("/runs/crons", { assistant_id: ASSISTANT, schedule: "0 9 * * *", input: say("b"), enabled: false })).json();
    const third = (await post(`/threads/${second}/runs/crons`, { assistant_id: ASSISTANT, schedule: "30 * * * *", input: say("c") })).json();
    expect(daily).toMatchObject({ enabled: false, next_run_date: null });

    const ids = async (body: Record<string, unknown>) => (await post("/runs/crons/search", body)).json<Array<{ cron_id: string }>>().map((cron) => cron.cron_id);
    expect(await ids({ sort_by: "created_at", sort_order: "asc" })).toEqual([hourly.cron_id, daily.cron_id, third.cron_id]);
    expect(await ids({ thread_id: first })).toEqual([hourly.cron_id]);
    expect(await ids({ enabled: false })).toEqual([daily.cron_id]);
    expect(await ids({ sort_by: "next_run_date", sort_order: "desc", limit: 1 })).toHaveLength(1);
    const page = await post("/runs/crons/search", { limit: 2, offset: 0 });
    expect(page.headers["x-pagination-next"]).toBe("2");
    expect((await post("/runs/crons/search", { thread_id: second, select: ["cron_id", "schedule"] })).json()).toEqual([{ cron_id: third.cron_id, schedule: "30 * * * *" }]);
    expect((await post("/runs/crons/count", {})).json()).toBe(3);
    expect((await post("/runs/crons/count", { thread_id: first })).json()).toBe(1);

    const endTime = "2099-01-01T00:00:00.000Z";
    const updated = await patch(`/runs/crons/${hourly.cron_id}`, { schedule: "15 * * * *", end_time: endTime, input: say("changed"), metadata: { v: 2 } });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ schedule: "15 * * * *", end_time: endTime, metadata: { v: 2 }, payload: { input: say("changed") }, enabled: true });
    expect(new Date(updated.json().next_run_date).getUTCMinutes()).toBe(15);
    expect((await patch(`/runs/crons/${daily.cron_id}`, { enabled: true, on_run_completed: "keep" })).json()).toMatchObject({ enabled: true, on_run_completed: "keep" });
    expect((await patch(`/runs/crons/${third.cron_id}`, { enabled: false })).json()).toMatchObject({ enabled: false, next_run_date: null });

    // Another tenant sees none of them.
    const other = { "x-tenant-id": "lg-crons-other" };
    expect((await gateway.post("/runs/crons/search", {}, other)).json()).toEqual([]);
    expect((await gateway.post("/runs/crons/count", {}, other)).json()).toBe(0);
    expect((await patch(`/runs/crons/${hourly.cron_id}`, { enabled: false }, other)).json()).toEqual({ detail: `Cron ${hourly.cron_id} not found`, code: "NOT_FOUND" });
    expect((await gateway.del(`/runs/crons/${hourly.cron_id}`, other)).statusCode).toBe(404);

    for (const cron of [hourly, daily, third]) expect((await gateway.del(`/runs/crons/${cron.cron_id}`, headers)).statusCode).toBe(204);
    expect((await gateway.del(`/runs/crons/${hourly.cron_id}`, headers)).json()).toEqual({ detail: `Cron ${hourly.cron_id} not found`, code: "NOT_FOUND" });
    expect((await post("/runs/crons/count", {})).json()).toBe(0);
  });

  it("refuses what it cannot schedule, storing nothing", async () => {
    const thread = await newThread();
    const refusal = async (url: string, body: Record<string, unknown>) => {
      const answer = await post(url, { assistant_id: ASSISTANT, schedule: "0 * * * *", input: say("x"), ...body });
      return [answer.statusCode, answer.json().code];
    };
    expect(await refusal("/runs/crons", { schedule: "61 * * * *" })).toEqual([422, "INVALID_CRON"]);
    expect(await refusal("/runs/crons", { assistant_id: "nobody" })).toEqual([404, "NOT_FOUND"]);
    expect(await refusal("/threads/no-such-thread/runs/crons", {})).toEqual([404, "NOT_FOUND"]);
    expect(await refusal(`/threads/${thread}/runs/crons`, { interrupt_before: ["planner"] })).toEqual([422, "INVALID_REQUEST"]);
    expect(await refusal(`/threads/${thread}/runs/crons`, { input: { messages: [{ role: "wizard", content: "x" }] } })).toEqual([422, "INVALID_REQUEST"]);
    expect(await refusal("/runs/crons", { end_time: "tomorrow" })).toEqual([422, "INVALID_REQUEST"]);
    expect((await post("/runs/crons/count", {})).json()).toBe(0);
    // A thread created with if_not_exists: create.
    expect(await refusal("/threads/made-by-cron/runs/crons", { if_not_exists: "create" })).toEqual([200, undefined]);
    expect((await get("/threads/made-by-cron")).statusCode).toBe(200);
    const [cron] = (await post("/runs/crons/search", {})).json();
    expect((await patch(`/runs/crons/${cron.cron_id}`, { schedule: "nope" })).json()).toMatchObject({ code: "INVALID_CRON" });
    expect((await patch(`/runs/crons/${cron.cron_id}`, { interrupt_after: ["planner"] })).json()).toMatchObject({ code: "INVALID_REQUEST" });
    expect((await get(`/threads/made-by-cron`)).statusCode).toBe(200);
    expect((await gateway.del(`/runs/crons/${cron.cron_id}`, headers)).statusCode).toBe(204);
  });
});
