// The agent runtime composed with the PostgreSQL stores, as the gateway composes them: two replicas
// (agent managers, each with its own pool) on one database, sharing the lease store, queue store,
// assistants, PostgresSaver checkpoints and LISTEN/NOTIFY wake-ups.
import { AgentInstanceManager, type AgentRuntimeOptions } from "@axiom-lattice/agent";
import { type Logger, type QueueWakeup, getThreadRunOwner } from "@axiom-lattice/core";
import { type PostgreSQLStores, PostgreSQLQueueWakeup, createPostgreSQLStores } from "@axiom-lattice/pg-stores";
import { ListenerConnection, SimulatedCrash, type TestDatabase, crashAfterModelAnswer, eventually, runRecords } from "@axiom-lattice/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMigratedTestDatabase } from "./support";

const TENANT = "tenant-a";
const ASSISTANT = "echo-bot";
const scope = { tenantId: TENANT, assistantId: ASSISTANT };
const thread = (threadId: string) => ({ ...scope, threadId });

interface Replica {
  stores: PostgreSQLStores;
  wakeup: PostgreSQLQueueWakeup;
}

let database: TestDatabase;
const replicas: Replica[] = [];
const managers: AgentInstanceManager[] = [];

/** A wake-up that reaches nobody (a replica that dies before notifying, or a lost notification). */
const lostWakeups: QueueWakeup = { notify: async () => {}, subscribe: () => () => {} };
/** The replicas' logger: keeps their expected warnings off the test output. */
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };

async function replica(name: string): Promise<Replica> {
  const stores = await createPostgreSQLStores(database.url, { poolConfig: { max: 5 }, logger: quiet });
  const created = { stores, wakeup: new PostgreSQLQueueWakeup({ pool: stores.pool, logger: quiet, listenerApplicationName: `wakeup-${name}` }) };
  replicas.push(created);
  return created;
}

function manager({ stores, wakeup }: Replica, options: Partial<AgentRuntimeOptions> = {}): AgentInstanceManager {
  const created = new AgentInstanceManager({
    queue: stores.queue,
    leases: stores.lease,
    assistants: stores.assistants,
    checkpointer: stores.checkpoint,
    threads: stores.threads,
    items: stores.items,
    wakeup,
    logger: quiet,
    ...options,
  });
  managers.push(created);
  return created;
}

let a: Replica;
let b: Replica;

beforeAll(async () => {
  database = await createMigratedTestDatabase();
  [a, b] = await Promise.all([replica("a"), replica("b")]);
  await a.stores.assistants.createAssistant(TENANT, { id: ASSISTANT, name: "Echo bot", model: { provider: "scripted" }, tools: ["echo"] });
});

afterEach(async () => {
  await Promise.all(managers.splice(0).map((created) => created.shutdown()));
});

afterAll(async () => {
  for (const { wakeup, stores } of replicas) {
    await wakeup.dispose();
    await stores.dispose();
  }
  await database.drop();
});

const queue = () => a.stores.queue;
const runStatus = async (messageId: string) => (await queue().getMessage(messageId, scope))?.runStatus;

/** Resolves once the replica's wake-up connection has completed its LISTEN. */
const listening = (name: string) => new ListenerConnection(a.stores.pool, `wakeup-${name}`).awaitListening();

describe("agent runtime on two replicas", { timeout: 60_000 }, () => {
  it("runs every message exactly once, per thread in enqueue order, never two runs of a thread at once", async () => {
    const [managerA, managerB] = [manager(a), manager(b)];
    const threads = ["race-1", "race-2", "race-3", "race-4"];
    const perThread = 10;
    // Both replicas enqueue to every thread at the same time, so both are woken for every thread.
    const sent = await Promise.all(
      Array.from({ length: perThread }, (_, i) =>
        threads.map((threadId) => ((i + threads.indexOf(threadId)) % 2 ? managerA : managerB).getAgent(thread(threadId)).addMessage({ message: `${threadId} #${i}` })),
      ).flat(),
    );
    expect(sent).toHaveLength(threads.length * perThread);

    for (const threadId of threads) {
      await eventually(`${threadId} drained`, async () => (await runRecords(queue(), { ...scope, threadId })).length === perThread, { timeoutMs: 30_000 });
      const runs = await runRecords(queue(), { ...scope, threadId });
      expect(runs.every((run) => run.runStatus === "success")).toBe(true);
      // Claim order is enqueue order (the database sequence), and each run starts after the previous one finished.
      const bySequence = [...runs].sort((x, y) => Number(BigInt(x.sequence) - BigInt(y.sequence)));
      expect(runs.map((run) => run.id)).toEqual(bySequence.map((run) => run.id));
      for (let i = 1; i < runs.length; i++) {
        expect(runs[i].startedAt!.getTime()).toBeGreaterThanOrEqual(runs[i - 1].finishedAt!.getTime());
      }
      // The shared checkpoint holds each message once, answered once, in order.
      const { messages } = await managerA.getAgent(thread(threadId)).getState();
      expect(messages.map((message) => message.content)).toEqual(
        bySequence.flatMap((run) => {
          const text = (run.content as { message: string }).message;
          return [text, `echo: ${text}`];
        }),
      );
    }
    // Every run happened on exactly one of the replicas.
    expect(managerA.stats().bufferedMessages + managerB.stats().bufferedMessages).toBe(threads.length * perThread);
  });

  /**
   * Waits until no replica holds the thread's run lease. A processor gives it back just after its last
   * run ended (it looks at the queue once more), so a peer acting at once may still find it taken.
   */
  const released = (scope: ReturnType<typeof thread>) =>
    eventually("the thread's run lease to be released", async () => (await getThreadRunOwner(scope, { store: b.stores.lease })) === null);

  it("continues a conversation on another replica from the shared checkpoint", async () => {
    const managerA = manager(a, { wakeup: lostWakeups });
    const managerB = manager(b, { wakeup: lostWakeups });
    const first = await managerA.getAgent(thread("handover")).addMessage({ message: "turn one" }, { mode: "wait" });
    expect(await first.completion).toMatchObject({ status: "success" });
    await released(thread("handover"));

    const second = await managerB.getAgent(thread("handover")).addMessage({ message: "turn two" }, { mode: "wait" });
    const result = await second.completion;
    expect(result.status).toBe("success");
    expect(result.messages.map((message) => message.content)).toEqual(["turn two", "echo: turn two"]);
    const { messages } = await managerA.getAgent(thread("handover")).getState();
    expect(messages.map((message) => message.content)).toEqual(["turn one", "echo: turn one", "turn two", "echo: turn two"]);
    // Each run's messages, read on the replica that did not run it, from the checkpoint in PostgreSQL.
    expect((await managerA.getAgent(thread("handover")).waitForRun(second.messageId)).messages.map((message) => message.content)).toEqual(["turn two", "echo: turn two"]);
    expect((await managerB.getAgent(thread("handover")).waitForRun(first.messageId)).messages.map((message) => message.content)).toEqual(["turn one", "echo: turn one"]);
    expect(managerB.stats().bufferedMessages).toBe(1);
  });

  it("a replica that owns nothing starts a message at once when woken by NOTIFY", async () => {
    manager(b); // Listens; runs no sweep.
    await listening("b");
    const { id } = await queue().addMessage({ threadId: "notified", scope, content: { message: "wake up" } });
    await a.wakeup.notify(thread("notified"));
    await eventually("replica B to run the message", async () => (await runStatus(id)) === "success", { timeoutMs: 5_000 });
  });

  it("a replica whose LISTEN connection was terminated listens again, and a message its peer queued and notified runs there within seconds", async () => {
    // A replica of its own: no earlier test's LISTEN connection, still closing, to mistake for its own.
    manager(await replica("c")); // Listens; runs no sweep: only the re-established LISTEN can wake it.
    await listening("c");
    await new ListenerConnection(a.stores.pool, "wakeup-c").killAndAwaitRelisten();
    const { id } = await queue().addMessage({ threadId: "relistened", scope, content: { message: "wake up again" } });
    await a.wakeup.notify(thread("relistened"));
    await eventually("replica C to run the message", async () => (await runStatus(id)) === "success", { timeoutMs: 5_000 });
  });

  it("the sweep runs a message whose enqueuing replica died, and one whose runner crashed", async () => {
    const orphan = await queue().addMessage({ threadId: "orphan", scope, content: { message: "nobody woke me" } });
    const crashed = await queue().addMessage({ threadId: "crashed", scope, content: { message: "my runner died" } });
    await queue().claimPendingMessages({ ...scope, threadId: "crashed" }, { owner: "dead-replica#1", leaseMs: 200 });

    manager(b, { wakeup: lostWakeups }).startQueueSweep({ intervalMs: 200 });
    await eventually("the orphan to run", async () => (await runStatus(orphan.id)) === "success", { timeoutMs: 5_000 });
    await eventually("the crashed run to be redone", async () => (await runStatus(crashed.id)) === "success", { timeoutMs: 5_000 });
  });

  it("resumeTask on a replica reports leaseContended while its peer runs the thread", async () => {
    const managerA = manager(a, { wakeup: lostWakeups });
    const managerB = manager(b, { wakeup: lostWakeups });
    const agentA = managerA.getAgent(thread("contended"));
    const { messageId } = await agentA.addMessage({ message: "/sleep 600000" });
    await eventually("the run to start on A", async () => (await runStatus(messageId)) === "running");

    expect(await getThreadRunOwner(thread("contended"), { store: b.stores.lease })).not.toBeNull();
    expect(await managerB.getAgent(thread("contended")).resumeTask()).toEqual({ status: "busy", leaseContended: true });
    expect(await runStatus(messageId)).toBe("running");

    expect(await agentA.abort()).toEqual({ messageId, status: "aborted" });
    expect(await runStatus(messageId)).toBe("aborted");
    await released(thread("contended"));
    expect(await managerB.getAgent(thread("contended")).resumeTask()).toEqual({ status: "idle", leaseContended: false });
  });
});

describe("a replica killed at the worst moment for a run", { timeout: 60_000 }, () => {
  const shortLeases = { threadRunTtlMs: 500, claimLeaseMs: 500 };
  /** Where the answer is stored: as a pending write of the step, and in committed checkpoints. */
  const answerStored = async (answer: string) => {
    const { rows } = await a.stores.pool.query<{ pending: number; committed: number }>(
      `SELECT (SELECT count(*) FROM checkpoint_writes WHERE channel = 'messages' AND position(convert_to($1, 'UTF8') in blob) > 0)::int AS pending,
              (SELECT count(*) FROM checkpoint_blobs WHERE channel = 'messages' AND position(convert_to($1, 'UTF8') in blob) > 0)::int AS committed`,
      [answer],
    );
    return rows[0];
  };

  // A fenced run stores a step's pending writes with the checkpoint that commits it: the answer is
  // stored whole with its step, or (as here) not at all, and the peer asks the model again.
  it("after the model answered, before its step was stored: a peer finishes the run, answering again, once", async () => {
    const crash = new SimulatedCrash();
    const dying = manager(a, {
      wakeup: lostWakeups,
      ...shortLeases,
      queue: crash.wrap(a.stores.queue),
      leases: crash.wrap(a.stores.lease),
      checkpointer: crashAfterModelAnswer(a.stores.checkpoint, crash),
    });
    const { messageId } = await dying.getAgent(thread("answered")).addMessage({ message: "remember me" });
    await eventually("replica A to die", () => crash.killed, { timeoutMs: 10_000 });
    expect(await answerStored("echo: remember me")).toEqual({ pending: 0, committed: 0 });

    const peer = manager(b, { wakeup: lostWakeups, ...shortLeases });
    const agent = peer.getAgent(thread("answered"));
    const followed = agent.chunkStream(messageId);
    peer.startQueueSweep({ intervalMs: 100 });
    let text = "";
    for await (const chunk of followed) if (chunk.type === "message_chunk") text += (chunk.data as { content: string }).content;
    expect(text).toBe("echo: remember me");
    expect(await queue().getMessage(messageId, scope)).toMatchObject({ runStatus: "success", replicaId: expect.any(String) });

    const next = await agent.addMessage({ message: "next turn" }, { mode: "wait" });
    expect((await next.completion).messages.map((message) => message.content)).toEqual(["next turn", "echo: next turn"]);
    // The crashed run's own messages: its start was recorded with its input, before the crash.
    expect((await agent.waitForRun(messageId)).messages.map((message) => message.content)).toEqual(["remember me", "echo: remember me"]);
    expect((await agent.getState()).messages.map((message) => message.content)).toEqual(["remember me", "echo: remember me", "next turn", "echo: next turn"]);
  });

  it("with its claim outliving its thread-run lease: the next holder runs that message before anything newer", async () => {
    const first = await queue().addMessage({ threadId: "outlived", scope, content: { message: "first" } });
    const second = await queue().addMessage({ threadId: "outlived", scope, content: { message: "second" } });
    await queue().claimPendingMessages({ ...scope, threadId: "outlived" }, { owner: "dead-replica#1", leaseMs: 60_000 });

    expect(await manager(b, { wakeup: lostWakeups }).getAgent(thread("outlived")).resumeTask()).toEqual({ status: "idle", leaseContended: false });
    expect((await runRecords(queue(), { ...scope, threadId: "outlived" })).map((run) => [run.id, run.runStatus])).toEqual([
      [first.id, "success"],
      [second.id, "success"],
    ]);
  });
});
