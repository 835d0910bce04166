import type { Client } from "@langchain/langgraph-sdk";
import { expect, it } from "vitest";
import type { LanggraphTarget } from "./langgraphConformance";
import { refusal, say, tenantWithAssistant, transcript, untilRunning } from "./langgraphSdk";

/**
 * The SDK conformance cases of run control beyond cancel (deleting runs, rollback, delayed runs) and of stateless background runs. Same targets as
 * {@link langgraphConformance} (one gateway in memory; replicas behind nginx, where each request may
 * reach another replica than the one running the run).
 */
export function langgraphRunControlConformance(target: () => LanggraphTarget): void {
  const setUp = (name: string) => tenantWithAssistant(target().url, name);

  it("runs.delete: an ended run and a queued one (never run) are deleted; one in progress answers 409 until cancelled", async () => {
    const { client, assistantId } = await setUp("run-delete");
    const { thread_id } = await client.threads.create();
    const ended = await client.runs.create(thread_id, assistantId, { input: say("first") });
    await client.runs.join(thread_id, ended.run_id);
    const running = await client.runs.create(thread_id, assistantId, { input: say("/sleep 20000") });
    const queued = await client.runs.create(thread_id, assistantId, { input: say("never"), multitaskStrategy: "enqueue" });
    await untilRunning(client, thread_id, running.run_id, "/sleep 20000");

    expect(await refusal(client.runs.delete(thread_id, running.run_id))).toEqual({
      status: 409,
      body: { detail: `Run ${running.run_id} is in progress: cancel it before deleting it`, code: "RUN_IN_PROGRESS" },
    });
    await client.runs.delete(thread_id, ended.run_id);
    await client.runs.delete(thread_id, queued.run_id);
    expect(await refusal(client.runs.get(thread_id, queued.run_id))).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    expect((await client.runs.list(thread_id)).map((run) => run.run_id)).toEqual([running.run_id]);

    await client.runs.cancel(thread_id, running.run_id, true);
    await client.runs.delete(thread_id, running.run_id);
    expect(await client.runs.list(thread_id)).toEqual([]);
    // Deleting runs leaves the thread's state; the queued one never ran.
    expect(transcript((await client.threads.getState(thread_id)).values)).toEqual(["human:first", "ai:echo: first", "human:/sleep 20000"]);
    expect(await refusal(client.runs.delete(thread_id, ended.run_id))).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
  });

  it("rollback: multitaskStrategy rollback deletes the stopped run (on whichever replica it ran) before the new one runs; cancel with action rollback deletes it too", async () => {
    const { client, assistantId } = await setUp("rollback");
    const { thread_id } = await client.threads.create();
    const first = await client.runs.create(thread_id, assistantId, { input: say("/sleep 20000") });
    await untilRunning(client, thread_id, first.run_id, "/sleep 20000");
    const instead = await client.runs.wait(thread_id, assistantId, { input: say("instead"), multitaskStrategy: "rollback" });
    expect(transcript(instead).at(-1)).toBe("ai:echo: instead");
    expect(await refusal(client.runs.get(thread_id, first.run_id))).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    expect((await client.runs.list(thread_id)).map((run) => run.status)).toEqual(["success"]);

    const second = await client.runs.create(thread_id, assistantId, { input: say("/sleep 20000") });
    await untilRunning(client, thread_id, second.run_id, "/sleep 20000");
    await client.runs.cancel(thread_id, second.run_id, true, "rollback");
    expect(await refusal(client.runs.get(thread_id, second.run_id))).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    expect((await client.threads.get(thread_id)).status).toBe("idle");
  });

  it("afterSeconds: the run is created now, pending, and runs once due on whichever replica takes it; runs due behind it go first", async () => {
    const { client, assistantId } = await setUp("after-seconds");
    const { thread_id } = await client.threads.create();
    const later = await client.runs.create(thread_id, assistantId, { input: say("later"), afterSeconds: 3600 });
    expect(later).toMatchObject({ status: "pending", thread_id });
    const now = await client.runs.create(thread_id, assistantId, { input: say("now"), multitaskStrategy: "enqueue" });
    await client.runs.join(thread_id, now.run_id);
    expect((await client.runs.get(thread_id, later.run_id)).status).toBe("pending");
    await client.runs.cancel(thread_id, later.run_id);

    const soon = await client.runs.create(thread_id, assistantId, { input: say("soon"), afterSeconds: 1 });
    expect(soon.status).toBe("pending");
    expect(transcript(await client.runs.join(thread_id, soon.run_id)).at(-1)).toBe("ai:echo: soon");
    expect(transcript((await client.threads.getState(thread_id)).values)).toEqual(["human:now", "ai:echo: now", "human:soon", "ai:echo: soon"]);
  });

  it("stateless background runs: runs.create(null, …) and createBatch run each on a thread of its own; threads.count counts", async () => {
    const { client, assistantId } = await setUp("background");
    // The SDK's create sends no on_completion: the run's thread is deleted once it ended, as on the platform.
    const run = await client.runs.create(null, assistantId, { input: say("alone") });
    expect(run).toMatchObject({ run_id: expect.any(String), thread_id: expect.any(String), assistant_id: assistantId });
    const threadStatus = () => client.threads.get(run.thread_id).then(() => 200, (error: { status?: number }) => error.status);
    await expect.poll(threadStatus, { timeout: 15_000 }).toBe(404);

    // createBatch sends each payload's keys as given (camelCase, assistant_id beside assistantId);
    // onCompletion is not in the SDK's types, but JavaScript callers may give it, and it is sent.
    const batch = await client.runs.createBatch([
      { assistantId, input: say("one"), onCompletion: "keep" },
      { assistantId, input: say("two"), onCompletion: "keep" },
    ] as unknown as Parameters<Client["runs"]["createBatch"]>[0]);
    expect(batch).toHaveLength(2);
    for (const [index, each] of batch.entries()) {
      expect(transcript(await client.runs.join(each.thread_id, each.run_id)).at(-1)).toBe(`ai:echo: ${["one", "two"][index]}`);
    }
    expect(await client.threads.count()).toBe(2);
    expect(await client.threads.count({ metadata: { assistant_id: assistantId }, status: "idle" })).toBe(2);
  });
}
