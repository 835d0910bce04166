import type { Client, Run } from "@langchain/langgraph-sdk";
import { expect, it } from "vitest";
import { eventually } from "./client";
import type { LanggraphTarget } from "./langgraphConformance";
import { GRAPH, freshTenant, refusal, say, sdkClient, transcript } from "./langgraphSdk";

/** Every second (6 fields, seconds first): a cron that fires within the case. */
export const EVERY_SECOND = "* * * * * *";

/** The runs a cron queued on a thread, by fire time (`cron_scheduled_at` in their metadata). */
export async function runsByFire(client: Client, threadId: string, cronId: string): Promise<Map<string, Run[]>> {
  const byFire = new Map<string, Run[]>();
  for (const run of await client.runs.list(threadId, { limit: 1000 })) {
    if (run.metadata?.cron_id !== cronId) continue;
    const fire = String(run.metadata.cron_scheduled_at);
    byFire.set(fire, [...(byFire.get(fire) ?? []), run]);
  }
  return byFire;
}

/**
 * The conformance cases of the LangGraph API's crons, thread copy and thread stream, driven by the real
 * `@langchain/langgraph-sdk` client (`client.crons`, `threads.copy`, `threads.joinStream`), on every target. Each case uses a
 * tenant of its own. The reference server (`@langchain/langgraph-api` 2.0) answers every cron route
 * with an error, so these follow the SDK's client and types.
 */
export function langgraphCronConformance(target: () => LanggraphTarget): void {
  const setUp = async (name: string) => {
    const client = await sdkClient(target().url, freshTenant(name));
    const { assistant_id } = await client.assistants.create({ graphId: GRAPH, context: { tools: ["echo"] } });
    return { client, assistantId: assistant_id };
  };

  it("crons: a thread's cron queues its run on each fire; search, count, update (disable, end time) and delete", async () => {
    const { client, assistantId } = await setUp("crons");
    const { thread_id } = await client.threads.create();
    const cron = await client.crons.createForThread(thread_id, assistantId, { schedule: EVERY_SECOND, input: say("tick"), metadata: { job: "ticks" }, multitaskStrategy: "enqueue" });
    expect(cron).toMatchObject({ assistant_id: assistantId, thread_id, schedule: EVERY_SECOND, metadata: { job: "ticks" }, end_time: null });
    expect(Date.parse(cron.next_run_date)).toBeGreaterThan(Date.parse(cron.created_at) - 1000);

    const fired = await eventually(async () => {
      const runs = [...(await runsByFire(client, thread_id, cron.cron_id)).values()].flat();
      return runs.some((run) => run.status === "success") ? runs : undefined;
    }, 30_000, "a fired run");
    expect(fired[0]).toMatchObject({ assistant_id: assistantId, metadata: { job: "ticks", cron_id: cron.cron_id } });
    expect(transcript((await client.threads.getState(thread_id)).values).slice(0, 2)).toEqual(["human:tick", "ai:echo: tick"]);

    expect((await client.crons.search({ threadId: thread_id })).map((found) => found.cron_id)).toEqual([cron.cron_id]);
    expect(await client.crons.search({ assistantId, select: ["cron_id", "schedule"] })).toEqual([{ cron_id: cron.cron_id, schedule: EVERY_SECOND }]);
    expect(await client.crons.count({ assistantId })).toBe(1);
    const endTime = "2099-12-31T00:00:00.000Z";
    const updated = await client.crons.update(cron.cron_id, { schedule: "0 9 * * *", endTime, enabled: false, metadata: { job: "daily" } });
    expect(updated).toMatchObject({ cron_id: cron.cron_id, schedule: "0 9 * * *", end_time: endTime, enabled: false, next_run_date: null, metadata: { job: "daily" } });
    expect(await client.crons.search({ enabled: true })).toEqual([]);

    await client.crons.delete(cron.cron_id);
    expect(await client.crons.count()).toBe(0);
    expect(await refusal(client.crons.delete(cron.cron_id))).toEqual({ status: 404, body: { detail: `Cron ${cron.cron_id} not found`, code: "NOT_FOUND" } });
  });

  it("crons: a cron without a thread runs each fire on a thread of its own, kept with onRunCompleted keep; bad schedules are refused", async () => {
    const { client, assistantId } = await setUp("stateless-crons");
    const cron = await client.crons.create(assistantId, { schedule: EVERY_SECOND, input: say("alone"), onRunCompleted: "keep" });
    expect(cron.thread_id ?? null).toBeNull();
    // A fire makes its thread, then queues the run on it: a search between the two finds the thread
    // idle and empty, as a thread a client just made. Wait for one whose run ended.
    const kept = await eventually(async () => {
      const threads = await client.threads.search({ metadata: { cron_id: cron.cron_id }, status: "idle" });
      return threads.find((thread) => transcript(thread.values).length > 0);
    }, 30_000, "a kept thread with its run's answer");
    expect(transcript(kept.values)).toEqual(["human:alone", "ai:echo: alone"]);
    await client.crons.delete(cron.cron_id);

    expect(await refusal(client.crons.create(assistantId, { schedule: "every minute", input: say("x") }))).toMatchObject({ status: 422, body: { code: "INVALID_CRON" } });
    expect(await refusal(client.crons.create("nobody", { schedule: "0 * * * *", input: say("x") }))).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    expect(await client.crons.count()).toBe(0);
  });

  it("threads: copy gives a new thread the metadata, state and checkpoint history, then each goes its own way", async () => {
    const { client, assistantId } = await setUp("copy");
    const { thread_id } = await client.threads.create({ metadata: { user: "ann" } });
    await client.runs.wait(thread_id, assistantId, { input: say("one") });
    const copy = await client.threads.copy(thread_id);
    expect(copy.thread_id).not.toBe(thread_id);
    expect(copy.metadata).toMatchObject({ user: "ann" });
    expect(transcript(copy.values)).toEqual(["human:one", "ai:echo: one"]);
    const history = async (id: string) => (await client.threads.getHistory(id, { limit: 100 })).map((state) => state.checkpoint.checkpoint_id);
    expect(await history(copy.thread_id)).toEqual(await history(thread_id));

    await client.runs.wait(copy.thread_id, assistantId, { input: say("two") });
    expect(transcript((await client.threads.getState(copy.thread_id)).values)).toHaveLength(4);
    expect(transcript((await client.threads.getState(thread_id)).values)).toEqual(["human:one", "ai:echo: one"]);
  });

  it("threads: joinStream follows the thread's runs one after the other as they come, each opened by its metadata", async () => {
    const { client, assistantId } = await setUp("thread-stream");
    const { thread_id } = await client.threads.create();
    // A thread stream has no end: the client leaves by aborting it.
    const leave = new AbortController();
    const stream = client.threads.joinStream(thread_id, { signal: leave.signal }) as AsyncGenerator<{ event: string; data: unknown }>;
    // Asked before the run exists: the first event arrives once the run below runs. The join follows
    // runs that have not ended when it arrives, and the SDK sends it without waiting for an answer: the
    // run lasts long enough for the join to arrive first on a loaded machine.
    const head = stream.next();
    const first = await client.runs.create(thread_id, assistantId, { input: say("/sleep 2000") });
    const events: Array<{ event: string; data: unknown }> = [(await head).value];
    const untilAnswered = async (text: string) => {
      for (;;) {
        const { value } = await stream.next();
        events.push(value);
        if (value.event === "values" && transcript(value.data).includes(`ai:echo: ${text}`)) return;
      }
    };
    await untilAnswered("/sleep 2000");
    // The answer streams before the run ends: a run created on the thread in between meets a busy
    // thread (multitask_strategy reject, the default).
    await client.runs.join(thread_id, first.run_id);
    const second = await client.runs.create(thread_id, assistantId, { input: say("again") });
    await untilAnswered("again");
    leave.abort();
    await stream.return(undefined).catch(() => undefined);
    expect(events.filter((event) => event.event === "metadata").map((event) => (event.data as { run_id: string }).run_id)).toEqual([first.run_id, second.run_id]);
    expect(new Set(events.map((event) => event.event))).toEqual(new Set(["metadata", "values"]));
  });
}
