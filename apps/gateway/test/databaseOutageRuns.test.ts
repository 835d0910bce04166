// A database outage during a run is not the run's failure, on PostgreSQL: the run's session is
// terminated (pg_terminate_backend, as an administrator or a failover does) while it reads or writes the
// thread's checkpoint, and the run is put back and finished from its checkpoint, the message entering
// the conversation once. (packages/agent's databaseOutage test covers the other places a run touches
// the database, and that the run's own failures still fail it.)
import { AgentInstanceManager, callerResumeMessageId, checkpointThreadId, taskThreadId } from "@axiom-lattice/agent";
import { type Logger, type QueueWakeup } from "@axiom-lattice/core";
import { type PostgreSQLStores, createPostgreSQLStores } from "@axiom-lattice/pg-stores";
import { type TestDatabase, eventually, recordingLogger, runRecords } from "@axiom-lattice/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMigratedTestDatabase } from "./support";

const TENANT = "tenant-a";
const scope = { tenantId: TENANT, assistantId: "echo-bot" };
const helperScope = { tenantId: TENANT, assistantId: "helper-bot" };

let database: TestDatabase;
let stores: PostgreSQLStores;
const managers: AgentInstanceManager[] = [];
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };

/** Wake-ups within this process only; the test's one manager runs every message. */
const noPeers: QueueWakeup = { notify: async () => {}, subscribe: () => () => {} };

beforeAll(async () => {
  database = await createMigratedTestDatabase();
  stores = await createPostgreSQLStores(database.url, { poolConfig: { max: 5 }, logger: quiet });
  // A session terminated while checked out reports its loss as an `error` event too; the run sees the
  // same error from its query. (The gateway's pool handles these; this bare pool needs a listener.)
  const heard = new WeakSet<object>();
  stores.pool.on("acquire", (client) => {
    if (heard.has(client)) return;
    heard.add(client);
    client.on("error", () => {});
  });
  stores.pool.on("error", () => {});
  await stores.assistants.createAssistant(TENANT, { id: "echo-bot", name: "Echo bot", model: { provider: "scripted" }, tools: [] });
  await stores.assistants.createAssistant(TENANT, { id: "helper-bot", name: "Helper", model: { provider: "scripted" }, tools: [] });
});

afterEach(async () => {
  await Promise.all(managers.splice(0).map((created) => created.shutdown()));
});

afterAll(async () => {
  await stores.dispose();
  await database.drop();
}, 30_000);

function replica() {
  const { logger, entries } = recordingLogger();
  const created = new AgentInstanceManager({
    queue: stores.queue,
    leases: stores.lease,
    assistants: stores.assistants,
    checkpointer: stores.checkpoint,
    threads: stores.threads,
    items: stores.items,
    runEvents: stores.runEvents,
    wakeup: noPeers,
    tasks: { store: stores.tasks },
    logger: logger as Logger,
    streamPollMs: 50,
  });
  managers.push(created);
  return { manager: created, logs: entries };
}

/** A session of the test database, holding `lockMode` on the checkpoints table until `release`. */
async function lockCheckpoints(lockMode: "EXCLUSIVE" | "ACCESS EXCLUSIVE") {
  const locker = await stores.pool.connect();
  await locker.query("BEGIN");
  await locker.query(`LOCK TABLE checkpoints IN ${lockMode} MODE`);
  return {
    /** Terminates the session that waits on the lock with a statement on checkpoints, once there is one. */
    async terminateWaiter(): Promise<string> {
      let waiter: { pid: number; query: string } | undefined;
      await eventually("a session to wait on the checkpoints table", async () => {
        // Asked outside the locking transaction, whose view of pg_stat_activity is frozen at its first look.
        const { rows } = await stores.pool.query<{ pid: number; query: string }>(
          `SELECT pid, query FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%checkpoints%'`,
        );
        waiter = rows[0];
        return waiter !== undefined;
      }, patiently);
      await stores.pool.query("SELECT pg_terminate_backend($1)", [waiter!.pid]);
      return waiter!.query;
    },
    async release(): Promise<void> {
      await locker.query("ROLLBACK");
      locker.release();
    },
  };
}

/** Whether the thread's graph has committed its first step: its model is being called now. */
const modelCalled = async (threadId: string) =>
  (
    await stores.pool.query(`SELECT 1 FROM checkpoints WHERE thread_id = $1 AND (metadata->>'step')::int >= 0`, [
      checkpointThreadId({ tenantId: TENANT, threadId }),
    ])
  ).rowCount! > 0;

/** The warnings of runs the database interrupted, by the error each was handed over with. */
const handOvers = (logs: ReturnType<typeof replica>["logs"]) =>
  logs.filter((entry) => entry.msg?.startsWith("run interrupted: the database is unavailable")).map((entry) => (entry.fields as { err: Error }).err.message);

/** Bounds for a machine shared with other test runs. */
const patiently = { timeoutMs: 30_000 };

const pgConnectionLoss = /terminating connection due to administrator command|Connection terminated unexpectedly|Client has encountered a connection error/;

describe("a run whose database session is terminated", { timeout: 90_000 }, () => {
  it("while reading its checkpoint (PostgresSaver.getTuple): put back, then run once", async () => {
    const { manager, logs } = replica();
    const agent = manager.getAgent({ ...scope, threadId: "read" });
    const lock = await lockCheckpoints("ACCESS EXCLUSIVE");
    const { messageId, completion } = await agent.addMessage({ message: "remember me" }, { mode: "wait" });
    expect(await lock.terminateWaiter()).toMatch(/^select/i);
    await lock.release();

    expect(await completion).toMatchObject({ status: "success", messages: [{ content: "remember me" }, { content: "echo: remember me" }] });
    expect(handOvers(logs)).toEqual(["terminating connection due to administrator command"]);
    expect((await runRecords(stores.queue, { ...scope, threadId: "read" })).map((run) => [run.id, run.runStatus])).toEqual([[messageId, "success"]]);
    expect((await agent.getState()).messages.map((message) => message.content)).toEqual(["remember me", "echo: remember me"]);
  });

  it("while writing the checkpoint after the model answered: the answer is kept, the message runs on, once", async () => {
    const { manager, logs } = replica();
    const agent = manager.getAgent({ ...scope, threadId: "answered" });
    const { messageId, stream } = await agent.addMessage({ message: "/sleep 1500" }, { mode: "stream" });
    await eventually("the model to be called", () => modelCalled("answered"), patiently);
    const lock = await lockCheckpoints("EXCLUSIVE");
    expect(await lock.terminateWaiter()).toMatch(/insert into checkpoint/i);
    await lock.release();

    // One stream: the interrupted attempt, why it stopped, the next attempt from the checkpoint.
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const types = chunks.map((chunk) => chunk.type);
    expect(chunks[types.indexOf("run_handed_over")]).toMatchObject({ data: { code: "DATABASE_UNAVAILABLE" } });
    expect(types.indexOf("run_resumed")).toBeGreaterThan(types.indexOf("run_handed_over"));
    expect(types.at(-1)).toBe("message_completed");
    expect(await agent.waitForRun(messageId)).toMatchObject({ status: "success", messages: [{ content: "/sleep 1500" }, { content: "echo: /sleep 1500" }] });
    expect(handOvers(logs)).toEqual([expect.stringMatching(pgConnectionLoss)]);
    expect((await runRecords(stores.queue, { ...scope, threadId: "answered" })).map((run) => [run.id, run.runStatus, run.error])).toEqual([[messageId, "success", undefined]]);
    expect((await agent.getState()).messages.map((message) => message.content)).toEqual(["/sleep 1500", "echo: /sleep 1500"]);
  });

  it("of a delegated task's run: the task completes, and its caller resumes once", async () => {
    const { manager, logs } = replica();
    const caller = manager.getAgent({ ...scope, threadId: "caller" });
    await caller.addMessage({ message: "/task helper-bot /sleep 1500" });
    let taskId = "";
    await eventually("the task to be delegated", async () => {
      taskId = (await stores.tasks.listTasks(TENANT, { limit: 1 })).items[0]?.id ?? "";
      return taskId !== "";
    }, patiently);
    await eventually("the task's model to be called", () => modelCalled(taskThreadId(taskId)), patiently);
    const lock = await lockCheckpoints("EXCLUSIVE");
    await lock.terminateWaiter();
    await lock.release();

    const resumed = callerResumeMessageId(taskId);
    await eventually("the caller to be resumed", async () => (await stores.queue.getMessage(resumed, scope))?.runStatus === "success", patiently);
    expect(await stores.tasks.getTask(TENANT, taskId)).toMatchObject({ status: "completed", result: "echo: /sleep 1500" });
    expect(handOvers(logs)).toEqual([expect.stringMatching(pgConnectionLoss)]);
    // The task is settled before its run's message completes (a crash in between settles it again), so
    // the caller may resume before the helper's run record is written.
    const helperRuns = async () => (await runRecords(stores.queue, { ...helperScope, threadId: taskThreadId(taskId) })).map((run) => run.runStatus);
    await eventually("the helper's run to be recorded", async () => (await helperRuns()).length > 0, patiently);
    expect(await helperRuns()).toEqual(["success"]);
    const helper = manager.getAgent({ ...helperScope, threadId: taskThreadId(taskId) });
    expect((await helper.getState()).messages.map((message) => message.content)).toEqual(["/sleep 1500", "echo: /sleep 1500"]);
    expect((await runRecords(stores.queue, { ...scope, threadId: "caller" })).map((run) => [run.id === resumed, run.runStatus])).toEqual([
      [false, "interrupted"],
      [true, "success"],
    ]);
    const toolResults = (await caller.getState()).messages.filter((message) => message.type === "tool");
    expect(toolResults.map((message) => JSON.parse(message.content))).toEqual([{ taskId, status: "completed", result: "echo: /sleep 1500" }]);
  });
});
