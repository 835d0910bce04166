// The owner of a streaming run dies (issue 23): its client, which read events from the owner's buffer
// that were never logged, resumes on the replica that takes the run over, and a follower elsewhere
// sees the run go on. Each is killed at an aimed moment, with the run event log in memory and in
// PostgreSQL: right before anything was logged, and right after a batch was.
// The owner pauses instead (issue 43): it wakes after its peer took the run over, and its late writes
// are all refused by their fences.
import { AgentInstanceManager, InMemoryCheckpointSaver, ScriptedChatModel, type StreamChunk } from "@axiom-lattice/agent";
import {
  type MessageQueueStore,
  InMemoryAssistantStore,
  InMemoryItemStore,
  InMemoryLeaseStore,
  InMemoryMessageQueueStore,
  InMemoryRunEventLog,
  InMemoryThreadStore,
  type Logger,
  type QueueWakeup,
} from "@axiom-lattice/core";
import { createPostgreSQLStores } from "@axiom-lattice/pg-stores";
import type { AssistantStore, ItemStore, LeaseStore, RunEvent, RunEventLog, RunEventRef, ThreadStore } from "@axiom-lattice/protocols";
import { SimulatedCrash, type TestDatabase, eventually, fresh, pauseAfterModelAnswer, recordingLogger } from "@axiom-lattice/testing";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { createMigratedTestDatabase } from "./support";

const TENANT = "tenant-a";
const ASSISTANT = "echo-bot";
const thread = (threadId: string) => ({ tenantId: TENANT, assistantId: ASSISTANT, threadId });
const TEXT = `/drip 20 ${Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ")}`;

/** The stores replicas share (one database). */
interface SharedStores {
  queue: MessageQueueStore;
  leases: LeaseStore;
  assistants: AssistantStore;
  checkpointer: BaseCheckpointSaver;
  threads: ThreadStore;
  items: ItemStore;
  runEvents: RunEventLog;
  dispose(): Promise<void>;
}

/** The replicas' logger: keeps the killed owner's expected warnings off the test output. */
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };

function inMemory(): SharedStores {
  // The lease store judges the fences of the runs' writes, as in the gateway's in-memory bundle.
  const leases = new InMemoryLeaseStore();
  return {
    queue: new InMemoryMessageQueueStore({ fences: leases, leases }),
    leases,
    assistants: new InMemoryAssistantStore(),
    checkpointer: new InMemoryCheckpointSaver(leases),
    threads: new InMemoryThreadStore(),
    items: new InMemoryItemStore({ fences: leases }),
    runEvents: new InMemoryRunEventLog({ fences: leases }),
    dispose: async () => {},
  };
}

async function onPostgreSQL(database: TestDatabase): Promise<SharedStores> {
  const stores = await createPostgreSQLStores(database.url, { poolConfig: { max: 8 }, logger: quiet });
  return {
    queue: stores.queue,
    leases: stores.lease,
    assistants: stores.assistants,
    checkpointer: stores.checkpoint,
    threads: stores.threads,
    items: stores.items,
    runEvents: stores.runEvents,
    dispose: () => stores.dispose(),
  };
}

/** The stores `open` gives, with the echo bot (the test database is shared by this file's suites). */
async function openWithEchoBot(open: () => Promise<SharedStores>): Promise<SharedStores> {
  const stores = await open();
  if (!(await stores.assistants.getAssistant(TENANT, ASSISTANT))) {
    await stores.assistants.createAssistant(TENANT, { id: ASSISTANT, name: "Echo bot", model: { provider: "scripted" }, tools: [] });
  }
  return stores;
}

/** A wake-up that reaches nobody: the dead owner's peer finds the message on its sweep. */
const lostWakeups: QueueWakeup = { notify: async () => {}, subscribe: () => () => {} };
const shortLeases = { threadRunTtlMs: 500, claimLeaseMs: 500 };

const managers: AgentInstanceManager[] = [];
function replica(stores: Omit<SharedStores, "dispose">, options: Partial<ConstructorParameters<typeof AgentInstanceManager>[0]>) {
  const created = new AgentInstanceManager({ ...stores, wakeup: lostWakeups, logger: quiet, ...shortLeases, ...options });
  managers.push(created);
  return created;
}

/** The log as the owner sees it: cut off by `crash`, and calling `afterAppend` when a batch is logged. */
function ownerLog(log: RunEventLog, crash: SimulatedCrash, afterAppend: () => void): RunEventLog {
  const cut = crash.wrap(log);
  return {
    append: async (run: RunEventRef, events: RunEvent[], options) => {
      await cut.append(run, events, options);
      afterAppend();
    },
    read: (...args) => cut.read(...args),
    lastIndex: (...args) => cut.lastIndex(...args),
    deleteRun: (...args) => cut.deleteRun(...args),
    deleteThread: (...args) => cut.deleteThread(...args),
    pruneOlderThan: (...args) => cut.pruneOlderThan(...args),
    subscribe: (listener) => log.subscribe(listener),
  };
}

/** Reads `stream` in the background; `chunks` fills as they arrive. */
function reading(stream: AsyncIterable<StreamChunk>) {
  const chunks: StreamChunk[] = [];
  const done = (async () => {
    for await (const chunk of stream) chunks.push(chunk);
  })();
  return { chunks, done };
}

const indexes = (chunks: Array<{ index: number }>) => chunks.map((chunk) => chunk.index);
const increasing = (values: number[]) => values.every((value, i) => i === 0 || value > values[i - 1]);
const textOf = (chunks: StreamChunk[]) =>
  chunks
    .filter((chunk) => chunk.type === "message_chunk")
    .map((chunk) => (chunk.data as { content: string }).content)
    .join("");

type Aim = "before anything was logged" | "right after a batch was logged";

describe.each([
  ["in memory", async () => inMemory()],
  ["in PostgreSQL", async () => onPostgreSQL(await database())],
])("the owner of a streaming run killed, its run event log %s", { timeout: 60_000 }, (_, open) => {
  let stores: SharedStores;

  beforeAll(async () => {
    stores = await openWithEchoBot(open);
  });

  afterAll(() => stores.dispose());

  it.each<Aim>(["before anything was logged", "right after a batch was logged"])("%s: its client resumes on the new owner after its last id; a follower sees the run go on; no id names two events", async (aim) => {
    const threadId = aim.startsWith("before") ? "before-flush" : "after-flush";
    const crash = new SimulatedCrash();
    let killAfterAppend = false;
    const ownerStores = {
      queue: crash.wrap(stores.queue),
      leases: crash.wrap(stores.leases),
      assistants: crash.wrap(stores.assistants),
      checkpointer: crash.wrap(stores.checkpointer),
      threads: stores.threads,
      items: stores.items,
      runEvents: ownerLog(stores.runEvents, crash, () => killAfterAppend && crash.kill()),
    };
    // Before: nothing is logged for a minute. After: the default batching, the kill right as a batch is in.
    const owner = replica(ownerStores, { replicaId: "replica-a", runEventFlushMs: aim.startsWith("before") ? 60_000 : undefined });
    const { messageId, stream } = await owner.getAgent(thread(threadId)).addMessage({ message: TEXT }, { mode: "stream" });
    const follower = reading(replica(stores, { replicaId: "replica-c", streamPollMs: 100 }).getAgent(thread(threadId)).chunkStream(messageId));

    // The owner's own client: what it received before the owner died.
    const seen: StreamChunk[] = [];
    for await (const chunk of stream) {
      if (crash.killed) break;
      seen.push(chunk);
      if (aim.startsWith("before") && seen.length === 10) crash.kill();
      if (!aim.startsWith("before") && seen.length === 10) killAfterAppend = true;
      if (crash.killed) break;
    }
    const run = { ...thread(threadId), messageId };
    const loggedAtDeath = await stores.runEvents.read(run, -1, 1_000);
    if (aim.startsWith("before")) {
      expect(loggedAtDeath).toEqual([]);
    } else {
      expect(loggedAtDeath.length).toBeGreaterThan(0);
    }
    // The hazard is there: the client holds ids of events the log never got.
    expect(seen.at(-1)!.index).toBeGreaterThanOrEqual(loggedAtDeath.at(-1)?.index ?? -1);
    if (aim.startsWith("before")) expect(seen.length).toBe(10);

    // A peer takes the thread over once the dead owner's lease expires.
    const { logger: peerLogger, entries: peerLogs } = recordingLogger();
    const peer = replica(stores, { replicaId: "replica-b", logger: peerLogger });
    // A failure (a timeout above all) says where the takeover stood.
    onTestFailed(async () => {
      const message = await stores.queue.getMessage(messageId, thread(threadId));
      const events = await stores.runEvents.read(run, -1, 1_000);
      console.error(`${aim}: the message ${JSON.stringify(message)}; ${events.length} events logged, the last ${JSON.stringify(events.at(-1))}`);
      console.error(`the follower saw ${follower.chunks.length} chunks; the peer logged:\n${peerLogs.map((entry) => JSON.stringify(entry)).join("\n")}`);
    });
    peer.startQueueSweep({ intervalMs: 50 });
    const resumed = await collectAll(peer.getAgent(thread(threadId)).chunkStream(messageId, seen.at(-1)!.index));
    await follower.done;

    // The client: the next attempt, announced, after its last id; its answer whole.
    expect(resumed[0]).toMatchObject({ type: "run_resumed", data: { replica: "replica-b", attempt: 2 } });
    expect(resumed.at(-1)).toMatchObject({ type: "message_completed" });
    expect(increasing(indexes([...seen, ...resumed]))).toBe(true);
    expect(textOf(resumed)).toBe(`echo: ${TEXT}`);

    // The follower: everything logged, once, in order; the dead attempt's logged events, then the next.
    const logged = await stores.runEvents.read(run, -1, 1_000);
    expect(follower.chunks.map(({ type, data, index }) => ({ type, data, index }))).toEqual(logged);
    expect(increasing(indexes(logged))).toBe(true);
    expect(follower.chunks.filter((chunk) => chunk.type === "run_resumed")).toHaveLength(1);
    expect(follower.chunks.at(-1)).toMatchObject({ type: "message_completed" });
    expect(textOf(follower.chunks.slice(follower.chunks.findIndex((chunk) => chunk.type === "run_resumed")))).toBe(`echo: ${TEXT}`);

    // No id names two events: what the client saw from the dead owner is what the log holds under those ids, if anything.
    const byIndex = new Map(logged.map((event) => [event.index, event]));
    for (const chunk of seen) {
      const event = byIndex.get(chunk.index);
      if (event) expect({ type: chunk.type, data: chunk.data }).toEqual({ type: event.type, data: event.data });
    }
  });
});

/**
 * `store` as a paused replica sees it when it wakes: its overdue timers and the promises behind them
 * run before anything tells it that its leases ran out, so its renewals seem to have held.
 */
function renewalsSeemToHold<T extends object>(store: T, renewal: "renew" | "renewClaim"): T {
  return new Proxy(store, {
    get: (target, property) => {
      if (property === renewal) return async (ids: string[] | string) => (Array.isArray(ids) ? ids.length : true);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The scripted model of a replica paused while it called it: it answers once the replica wakes. */
class ModelAnsweringOnceWoken extends ScriptedChatModel {
  constructor(private readonly woken: Promise<void>) {
    super();
  }

  override async *_streamResponseChunks(...args: Parameters<ScriptedChatModel["_streamResponseChunks"]>) {
    await this.woken;
    yield* super._streamResponseChunks(...args);
  }
}

describe.each([
  ["in memory", async () => inMemory()],
  ["in PostgreSQL", async () => onPostgreSQL(await database())],
])("a replica paused past its lease, stores %s", { timeout: 60_000 }, (_, open) => {
  let stores: SharedStores;

  beforeAll(async () => {
    stores = await openWithEchoBot(open);
  });

  afterAll(() => stores.dispose());

  // Each moment of the pause leaves a different write first in line when it wakes: its answer's
  // checkpoint (its events flushed as they come, or waiting to flush); the answer's own pending write,
  // paused after the model answered; or a batch of its events that was on its way to the log.
  type Moment = { pausedIn: "model call" | "answer's write" | "event batch"; runEventFlushMs?: number };
  it.each<[string, Moment]>([
    ["inside its model call", { pausedIn: "model call" }],
    ["inside its model call, its events waiting to flush", { pausedIn: "model call", runEventFlushMs: 60_000 }],
    ["after its model answered, before the checkpoint", { pausedIn: "answer's write", runEventFlushMs: 60_000 }],
    ["with a batch of its events on its way to the log", { pausedIn: "event batch" }],
  ])("%s: changes nothing when it wakes; every turn the peer answered stays, once and in order", async (_, { pausedIn, runEventFlushMs }) => {
    const threadId = fresh("paused-owner");
    const message = pausedIn === "event batch" ? `/drip 50 ${Array.from({ length: 24 }, (_, i) => `w${i}`).join(" ")}` : "/sleep 300";
    const { logger, entries } = recordingLogger();
    let wake = () => {};
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const paused = replica(
      {
        ...stores,
        leases: renewalsSeemToHold(stores.leases, "renew"),
        queue: renewalsSeemToHold(stores.queue, "renewClaim"),
        checkpointer: pausedIn === "answer's write" ? pauseAfterModelAnswer(stores.checkpointer, woken) : stores.checkpointer,
        runEvents: pausedIn === "event batch" ? appendsWaitingFor(stores.runEvents, woken) : stores.runEvents,
      },
      { replicaId: "replica-r", logger, runEventFlushMs },
    );
    if (pausedIn === "model call") paused.models.register("scripted", () => new ModelAnsweringOnceWoken(woken));
    const first = await paused.getAgent(thread(threadId)).addMessage({ message });
    await eventually("the run to start on the paused replica", () => paused.stats().runningThreads === 1, { timeoutMs: 5_000 });

    // The peer takes the thread over once the lease lapses, runs the message again, and answers the next.
    const peer = replica(stores, { replicaId: "replica-s" });
    peer.startQueueSweep({ intervalMs: 50 });
    const onPeer = peer.getAgent(thread(threadId));
    const second = await onPeer.addMessage({ message: "second" }, { mode: "wait" });
    expect((await second.completion).status).toBe("success");
    const run = { ...thread(threadId), messageId: first.messageId };
    const loggedBeforeWaking = await stores.runEvents.read(run, -1, 1_000);
    const stateBeforeWaking = await onPeer.getState();
    wake();

    // It goes on where it paused: the first write it tries is refused, and it lets go.
    await eventually("the paused replica to be fenced out", () => entries.some((entry) => /lease lost: .*refused/.test(entry.msg ?? "")), { timeoutMs: 10_000 });
    await eventually("the paused replica to let go", () => paused.stats().activeThreads === 0, { timeoutMs: 10_000 });
    expect(await stores.runEvents.read(run, -1, 1_000)).toEqual(loggedBeforeWaking);
    expect(await onPeer.getState()).toEqual(stateBeforeWaking);

    const third = await onPeer.addMessage({ message: "third" }, { mode: "wait" });
    expect((await third.completion).status).toBe("success");
    const state = await onPeer.getState();
    expect(state.messages.map((said) => said.content)).toEqual([message, `echo: ${message}`, "second", "echo: second", "third", "echo: third"]);
    const resumedAt = loggedBeforeWaking.findIndex((event) => event.type === "run_resumed");
    expect(loggedBeforeWaking[resumedAt]).toMatchObject({ data: { replica: "replica-s" } });
    expect(textOf(loggedBeforeWaking.slice(resumedAt) as StreamChunk[])).toBe(`echo: ${message}`);
    expect(loggedBeforeWaking.filter((event) => event.type === "message_completed")).toHaveLength(1);
  });
});

/** `log` as a replica paused with a batch on its way sees it: every append reaches the log once it wakes. */
function appendsWaitingFor(log: RunEventLog, woken: Promise<void>): RunEventLog {
  return new Proxy(log, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const call = value.bind(target) as (...args: unknown[]) => unknown;
      return property === "append" ? (...args: unknown[]) => woken.then(() => call(...args)) : call;
    },
  });
}

async function collectAll(stream: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

let testDatabase: TestDatabase | undefined;
const database = async () => (testDatabase ??= await createMigratedTestDatabase());

afterEach(async () => {
  await Promise.all(managers.splice(0).map((created) => created.shutdown()));
});

afterAll(async () => {
  await testDatabase?.drop();
});
