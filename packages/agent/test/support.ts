import type { Assistant } from "@axiom-lattice/protocols";
import { afterEach, beforeEach } from "vitest";
import {
  InMemoryAssistantStore,
  InMemoryItemStore,
  InMemoryLeaseStore,
  InMemoryMessageQueueStore,
  InMemoryRunEventLog,
  InMemoryThreadStore,
  InProcessQueueWakeup,
} from "@axiom-lattice/core";
import { recordingLogger } from "@axiom-lattice/testing";
import { AgentInstanceManager, type AgentRuntimeOptions, InMemoryCheckpointSaver, type StreamChunk } from "../src";

export const TENANT = "tenant-a";
export const ASSISTANT = "echo-bot";
/** The queue scope of the test assistant's threads. */
export const scope = { tenantId: TENANT, assistantId: ASSISTANT };
/** The logger of the test runtimes and stores: keeps their logs off the test output. */
export const { logger: quietLogger } = recordingLogger();

/** Stores shared by every manager of one test, as replicas share one database. */
export interface SharedStores {
  queue: InMemoryMessageQueueStore;
  leases: InMemoryLeaseStore;
  assistants: InMemoryAssistantStore;
  checkpointer: InMemoryCheckpointSaver;
  wakeup: InProcessQueueWakeup;
  threads: InMemoryThreadStore;
  items: InMemoryItemStore;
  /** The run event log the queue's completions log in (a manager is given it only when asked: {@link runEventLog}). */
  runEventLog: InMemoryRunEventLog;
}

export async function sharedStores(
  assistant: Partial<Pick<Assistant, "model" | "tools" | "systemPrompt">> = {},
  leases = new InMemoryLeaseStore(),
): Promise<SharedStores> {
  const assistants = new InMemoryAssistantStore();
  await assistants.createAssistant(TENANT, {
    id: ASSISTANT,
    name: "Echo bot",
    model: assistant.model ?? { provider: "scripted" },
    tools: assistant.tools ?? ["clock", "echo"],
    systemPrompt: assistant.systemPrompt,
  });
  // The stores judge fenced writes by the shared lease store, as the gateway's in-memory bundle does.
  const runEventLog = new InMemoryRunEventLog({ fences: leases });
  return {
    queue: new InMemoryMessageQueueStore({ fences: leases, runEvents: runEventLog, leases }),
    runEventLog,
    leases,
    assistants,
    checkpointer: new InMemoryCheckpointSaver(leases),
    wakeup: new InProcessQueueWakeup({ logger: quietLogger }),
    threads: new InMemoryThreadStore(),
    items: new InMemoryItemStore({ fences: leases }),
  };
}

/**
 * A run event log for the managers of a test, and their options for it: the queue's own, which its
 * completions log a run's last events in (`withCompletion`, as on PostgreSQL), or one apart from it.
 */
export function runEventLog(stores: SharedStores, withCompletion: boolean): { log: InMemoryRunEventLog; options: Partial<AgentRuntimeOptions> } {
  if (withCompletion) return { log: stores.runEventLog, options: { runEvents: stores.runEventLog, joinedStores: true } };
  const log = new InMemoryRunEventLog({ fences: stores.leases });
  return { log, options: { runEvents: log } };
}

const managers: AgentInstanceManager[] = [];

/** A manager (one simulated replica) on the shared stores; shut down by `shutdownManagers`. */
export function manager(stores: SharedStores, options: Partial<AgentRuntimeOptions> = {}): AgentInstanceManager {
  const created = new AgentInstanceManager({ ...stores, logger: quietLogger, ...options });
  managers.push(created);
  return created;
}

export async function shutdownManagers(): Promise<void> {
  await Promise.all(managers.splice(0).map((created) => created.shutdown()));
}

/**
 * The per-test setup of a runtime test file: fresh stores before each test, every
 * manager shut down after it. The stores are refilled in place, so the file keeps one reference.
 */
export function useSharedStores(): SharedStores {
  const stores = {} as SharedStores;
  beforeEach(async () => {
    Object.assign(stores, await sharedStores());
  });
  afterEach(() => shutdownManagers());
  return stores;
}

/** The run status of a message of the test assistant, if the message exists. */
export const runStatus = async (stores: SharedStores, messageId: string) => (await stores.queue.getMessage(messageId, scope))?.runStatus;

export const thread = (threadId: string, tenantId = TENANT) => ({ tenantId, assistantId: ASSISTANT, threadId });

export async function collect(stream: AsyncIterable<StreamChunk> | undefined): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream ?? []) chunks.push(chunk);
  return chunks;
}

/** The stream's chunks up to the first of `type` (included); the stream is left there. */
export async function collectUntil(stream: AsyncIterable<StreamChunk>, type: string): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream) {
    chunks.push(chunk);
    if (chunk.type === type) break;
  }
  return chunks;
}

/** The streamed text of a message's model tokens. */
export const tokens = (chunks: StreamChunk[]) =>
  chunks.filter((chunk) => chunk.type === "message_chunk").map((chunk) => (chunk.data as { content: string }).content);

