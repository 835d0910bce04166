// The owner of a streaming run dies (issue 23): its client, which read events from the owner's buffer
// that were never logged, resumes on the replica that takes the run over, and a follower elsewhere
// sees the run go on. Each is killed at an aimed moment, with the run event log in memory and in
// PostgreSQL: right before anything was logged, and right after a batch was.
import { AgentInstanceManager, type StreamChunk } from "@axiom-lattice/agent";
import {
  type IMessageQueueStore,
  InMemoryAssistantStore,
  InMemoryItemStore,
  InMemoryLeaseStore,
  InMemoryMessageQueueStore,
  InMemoryRunEventLog,
  InMemoryThreadStore,
  type Logger,
  type QueueWakeup,
} from "@axiom-lattice/core";
import { createPgStoreConfig } from "@axiom-lattice/pg-stores";
import type { AssistantStore, ItemStore, LeaseStore, RunEvent, RunEventLog, RunEventRef, ThreadStore } from "@axiom-lattice/protocols";
import { SimulatedCrash, type TestDatabase, createTestDatabase } from "@axiom-lattice/testing";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph-checkpoint";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const TENANT = "tenant-a";
const ASSISTANT = "echo-bot";
const thread = (threadId: string) => ({ tenantId: TENANT, assistantId: ASSISTANT, threadId });
const TEXT = `/drip 20 ${Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ")}`;

/** The stores replicas share (one database). */
interface SharedStores {
  queue: IMessageQueueStore;
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
  return {
    queue: new InMemoryMessageQueueStore(),
    leases: new InMemoryLeaseStore(),
    assistants: new InMemoryAssistantStore(),
    checkpointer: new MemorySaver(),
    threads: new InMemoryThreadStore(),
    items: new InMemoryItemStore(),
    runEvents: new InMemoryRunEventLog(),
    dispose: async () => {},
  };
}

async function onPostgreSQL(database: TestDatabase): Promise<SharedStores> {
  const stores = await createPgStoreConfig(database.url, { poolConfig: { max: 8 }, logger: quiet });
  return {
    queue: stores.threadMessageQueue,
    leases: stores.lease,
    assistants: stores.assistant,
    checkpointer: stores.checkpoint,
    threads: stores.thread,
    items: stores.item,
    runEvents: stores.runEvents,
    dispose: () => stores.dispose(),
  };
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
    append: async (run: RunEventRef, events: RunEvent[]) => {
      await cut.append(run, events);
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
    stores = await open();
    await stores.assistants.createAssistant(TENANT, { id: ASSISTANT, name: "Echo bot", model: { provider: "scripted" }, tools: [] });
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
    const peer = replica(stores, { replicaId: "replica-b" });
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

async function collectAll(stream: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

let testDatabase: TestDatabase | undefined;
const database = async () => (testDatabase ??= await createTestDatabase());

afterEach(async () => {
  await Promise.all(managers.splice(0).map((created) => created.shutdown()));
});

afterAll(async () => {
  await testDatabase?.drop();
});
