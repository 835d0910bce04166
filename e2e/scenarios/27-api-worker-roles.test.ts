import type { Pool } from "pg";
import { describe, expect, it } from "vitest";
import { type RunRecord, call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { collect, eventNames, say, tenantWithAssistant, transcript } from "../harness/langgraphSdk";
import type { Replica } from "../harness/replica";
import { answerOf, dripping, runningReplica, streamRun } from "../harness/runStreams";
import { ASSISTANT, createThreads } from "../harness/workloads";

// Issue 26: run execution off the HTTP event loop. One `api` replica takes every request; two
// `worker` replicas execute every run. Nothing reaches a worker but through the database: the queue
// and its wake-ups carry the runs, the run event log carries their streams back to the api replica.

/** Short enough that the surviving worker takes a dead one's run over within seconds. */
const RUN_LEASE_MS = "3000";

/** Who executed each message in the database (the replica of its claim), every message included. */
async function executors(pool: Pool): Promise<Array<{ id: string; status: string; replica_id: string | null }>> {
  const { rows } = await pool.query<{ id: string; status: string; replica_id: string | null }>("SELECT id, status, replica_id FROM lattice_thread_message_queue ORDER BY id");
  return rows;
}

const finishedRuns = (url: string, path: string, count: number, headers: Record<string, string> = {}) =>
  eventually(
    async () => {
      const { runs } = await expectOk<{ runs: RunRecord[] }>(call(url, "GET", path, undefined, headers));
      return runs.length === count && runs.every((run) => run.finished_at) ? runs : undefined;
    },
    60_000,
    `${count} runs of ${path} finished`,
  );

describe("scenario 27: an api replica and two workers on one PostgreSQL", () => {
  const cluster = useCluster();

  const start = async (env: Record<string, string> = {}): Promise<{ api: Replica; workers: Replica[]; pool: Pool }> => {
    const [api] = await cluster.start(1, { prefix: "api", env: { AXIOM_ROLE: "api", ...env } });
    const workers = await cluster.start(2, { prefix: "worker", env: { AXIOM_ROLE: "worker", ...env } });
    return { api, workers, pool: await cluster.sql() };
  };

  it("runs taken through the api replica in every way in are each executed by a worker, none by the api replica, whose answers carry them", async () => {
    const { api, workers, pool } = await start();
    const workerIds = workers.map((worker) => worker.replicaId);

    // Each says what it does; a worker's port serves its operators, not the API.
    expect(await expectOk(call(api.url, "GET", "/health"))).toEqual({ status: "ok", role: "api", version: expect.any(String) });
    for (const worker of workers) {
      expect(await expectOk(call(worker.url, "GET", "/health"))).toEqual({ status: "ok", role: "worker", version: expect.any(String) });
      expect((await call(worker.url, "GET", "/ready")).status).toBe(200);
      expect((await call(worker.url, "GET", "/metrics")).text).toContain('lattice_replica_role{role="worker"} 1');
      for (const [method, path] of [["GET", "/api/threads"], ["POST", "/api/runs"], ["GET", "/api/cluster"], ["POST", "/threads"], ["POST", "/runs/wait"]]) {
        expect((await call(worker.url, method, path, method === "POST" ? {} : undefined)).status, `${method} ${path} on ${worker.replicaId}`).toBe(404);
      }
    }

    // The cluster, seen from the api replica, says who is who.
    const cluster = await expectOk<{ replicas: Array<{ replica_id: string; role: string }> }>(call(api.url, "GET", "/api/cluster"));
    expect(cluster.replicas.map(({ replica_id, role }) => `${replica_id}:${role}`)).toEqual([`${api.replicaId}:api`, ...workerIds.map((id) => `${id}:worker`)]);

    // /api/runs: wait and stream.
    await createThreads(api.url, ["waited", "streamed", "scheduled"]);
    const waited = await call(api.url, "POST", "/api/runs", { assistant_id: ASSISTANT, thread_id: "waited", message: "hello", mode: "wait" });
    expect(waited.headers.get("x-axiom-replica")).toBe(api.replicaId);
    expect(waited.json()).toMatchObject({ status: "success", messages: [{ content: "hello" }, { content: "echo: hello" }] });
    const streamed = await streamRun(api.url, "streamed", "streamed-m", "one two three");
    await streamed.follower.ended;
    expect(streamed.replicaId).toBe(api.replicaId);
    expect(answerOf(streamed.follower.events)).toBe("echo: one two three");

    // The LangGraph SDK: runs.stream, runs.wait, a background run joined, and a stateless wait.
    const { client, tenant, assistantId } = await tenantWithAssistant(api.url, "roles");
    const { thread_id } = await client.threads.create();
    const events = await collect(client.runs.stream(thread_id, assistantId, { input: say("streamed by sdk"), streamMode: ["values"] }));
    expect(eventNames(events)).toContain("values");
    expect(transcript(events.filter((event) => event.event === "values").at(-1)!.data)).toEqual(["human:streamed by sdk", "ai:echo: streamed by sdk"]);
    expect(transcript(await client.runs.wait(thread_id, assistantId, { input: say("waited by sdk") })).slice(-2)).toEqual(["human:waited by sdk", "ai:echo: waited by sdk"]);
    const background = await client.runs.create(thread_id, assistantId, { input: say("in the background") });
    expect(transcript(await client.runs.join(thread_id, background.run_id)).slice(-1)).toEqual(["ai:echo: in the background"]);
    // Stateless, kept once ended so its record stays to say who ran it (onCompletion is not in the
    // SDK's types for a stateless run, but it is sent).
    const keep: object = { onCompletion: "keep" };
    expect(transcript(await client.runs.wait(null, assistantId, { input: say("stateless"), ...keep }))).toEqual(["human:stateless", "ai:echo: stateless"]);

    // A project task dispatched through the api replica.
    await expectOk(call(api.url, "POST", "/api/projects", { id: "launch", name: "Launch" }), 201);
    await expectOk(call(api.url, "PUT", `/api/projects/launch/bots/${ASSISTANT}`));
    await expectOk(call(api.url, "POST", "/api/tasks", { id: "ship", title: "ship", description: "ship it", owner_type: "agent", owner_id: ASSISTANT, project_id: "launch" }), 201);
    await expectOk(call(api.url, "POST", "/api/tasks/ship/dispatch"));
    const task = await eventually(
      async () => {
        const result = await expectOk<{ status: string; result?: unknown }>(call(api.url, "GET", "/api/tasks/ship/result"));
        return result.status === "completed" ? result : undefined;
      },
      60_000,
      "the task completed",
    );
    expect(task).toMatchObject({ result: "echo: ship it" });

    // A one-shot schedule: whichever replica fires it, the message it queues runs on a worker.
    await expectOk(
      call(api.url, "POST", "/api/schedules", { task_type: "agent-message", delay_ms: 200, payload: { assistant_id: ASSISTANT, thread_id: "scheduled", message: "on time" } }),
      201,
    );
    await finishedRuns(api.url, "/api/threads/scheduled/runs", 1);
    await finishedRuns(api.url, `/api/threads/${thread_id}/runs`, 3, { "x-tenant-id": tenant });

    // Every message in the database ran to success on a worker; the api replica claimed none.
    const ran = await executors(pool);
    // /api/runs 2, SDK 4, the task 1, the schedule 1.
    expect(ran).toHaveLength(8);
    for (const message of ran) {
      expect(message.status, message.id).toBe("completed");
      expect(workerIds, `${message.id} ran on ${message.replica_id}`).toContain(message.replica_id);
    }
    expect((await call(api.url, "GET", "/metrics")).text).toMatch(/^lattice_queue_claims_total 0$/m);
  });

  it("kill -9 of the worker running a run, after its first chunk: the other worker completes it once, and the stream through the api replica carries it to the end", async () => {
    const { api, workers, pool } = await start({ AXIOM_RUN_LEASE_MS: RUN_LEASE_MS });
    await createThreads(api.url, ["killed"]);
    const text = dripping(60, 60);
    const stream = await streamRun(api.url, "killed", "killed-m", text);
    await eventually(async () => (stream.follower.ofType("message_chunk").length > 0 ? true : undefined), 30_000, "a first chunk through the api replica");

    const ownerId = await runningReplica(pool, "killed-m");
    const owner = workers.find((worker) => worker.replicaId === ownerId);
    expect(owner, `${ownerId} is a worker`).toBeDefined();
    await owner!.stop("SIGKILL");
    const survivor = workers.find((worker) => worker !== owner)!;

    await stream.follower.ended;
    expect(stream.follower.events.at(-1)).toMatchObject({ type: "message_completed" });
    expect(stream.follower.ofType("run_resumed").map((event) => event.data)).toEqual([{ replica: survivor.replicaId, attempt: 2 }]);
    expect(answerOf(stream.follower.events)).toBe(`echo: ${text}`);

    const [record] = await finishedRuns(api.url, "/api/threads/killed/runs", 1);
    expect(record).toMatchObject({ message_id: "killed-m", status: "success", replica_id: survivor.replicaId });
    // Once: the conversation holds the message and one answer to it.
    const { messages } = await expectOk<{ messages: Array<{ type: string; content: string }> }>(call(api.url, "GET", "/api/threads/killed/state"));
    expect(messages.map((message) => `${message.type}:${message.content}`)).toEqual([`human:${text}`, `ai:echo: ${text}`]);
  });
});
