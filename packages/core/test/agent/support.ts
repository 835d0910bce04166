import type { Assistant } from "@axiom-lattice/protocols";
import { MemorySaver } from "@langchain/langgraph";
import {
  AgentInstanceManager,
  type AgentRuntimeOptions,
  InMemoryAssistantStore,
  InMemoryLeaseStore,
  InMemoryMessageQueueStore,
  InProcessQueueWakeup,
  type StreamChunk,
} from "../../src";

export const TENANT = "tenant-a";
export const ASSISTANT = "echo-bot";

/** Stores shared by every manager of one test, as replicas share one database. */
export interface SharedStores {
  queue: InMemoryMessageQueueStore;
  leases: InMemoryLeaseStore;
  assistants: InMemoryAssistantStore;
  checkpointer: MemorySaver;
  wakeup: InProcessQueueWakeup;
}

export async function sharedStores(assistant: Partial<Pick<Assistant, "model" | "tools" | "systemPrompt">> = {}): Promise<SharedStores> {
  const assistants = new InMemoryAssistantStore();
  await assistants.createAssistant(TENANT, {
    id: ASSISTANT,
    name: "Echo bot",
    model: assistant.model ?? { provider: "scripted" },
    tools: assistant.tools ?? ["clock", "echo"],
    systemPrompt: assistant.systemPrompt,
  });
  return {
    queue: new InMemoryMessageQueueStore(),
    leases: new InMemoryLeaseStore(),
    assistants,
    checkpointer: new MemorySaver(),
    wakeup: new InProcessQueueWakeup(),
  };
}

const managers: AgentInstanceManager[] = [];

/** A manager (one simulated replica) on the shared stores; shut down by `shutdownManagers`. */
export function manager(stores: SharedStores, options: AgentRuntimeOptions = {}): AgentInstanceManager {
  const created = new AgentInstanceManager({ ...stores, ...options });
  managers.push(created);
  return created;
}

export async function shutdownManagers(): Promise<void> {
  await Promise.all(managers.splice(0).map((created) => created.shutdown()));
}

export const thread = (threadId: string, tenantId = TENANT) => ({ tenantId, assistantId: ASSISTANT, threadId });

export async function collect(stream: AsyncIterable<StreamChunk> | undefined): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream ?? []) chunks.push(chunk);
  return chunks;
}

/** The streamed text of a message's model tokens. */
export const tokens = (chunks: StreamChunk[]) =>
  chunks.filter((chunk) => chunk.type === "message_chunk").map((chunk) => (chunk.data as { content: string }).content);

/** Polls until `check` holds; fails after `timeoutMs` (a bound, never a timing claim). */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
