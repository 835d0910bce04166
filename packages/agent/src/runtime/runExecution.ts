import { type MessageChunk, MessageChunkTypes, type ErrorCode } from "@axiom-lattice/protocols";
import { AIMessage, AIMessageChunk, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { AGENT_NODE, type AssistantGraph, TOOLS_NODE } from "../graph/reactGraph";
import { type PendingInterrupt, pendingInterrupts } from "../graph/pendingInterrupts";
import { recordRunStart } from "../graph/runBoundaries";
import type { RunContent } from "./runContent";

/** A resume command arrived for a thread that is not waiting on an interrupt. */
export class NothingToResumeError extends Error {
  readonly code = "NOTHING_TO_RESUME" satisfies ErrorCode;

  constructor() {
    super("The thread has no pending interrupt to resume");
    this.name = "NothingToResumeError";
  }
}

export interface RunExecution {
  graph: AssistantGraph;
  /** Addresses the thread's checkpoints. */
  config: LangGraphRunnableConfig;
  messageId: string;
  content: RunContent;
  signal: AbortSignal;
  /** Streams a chunk; the run waits while it settles (the run's output holds it back until its events are logged). */
  emit(chunk: MessageChunk): Promise<void>;
}

export type ExecutedRun = { status: "success" } | { status: "interrupted"; interrupts: PendingInterrupt[] };

/**
 * Runs one queued message through the graph, streaming model tokens, tool calls and tool results.
 * Throws when the graph fails or `signal` aborts it.
 */
export async function executeRun({ graph, config, messageId, content, signal, emit }: RunExecution): Promise<ExecutedRun> {
  const input = await planInput(graph, config, messageId, content);
  if (input !== ALREADY_RAN) {
    const stream = await graph.stream(input, { ...config, streamMode: ["messages", "updates"], signal });
    for await (const [mode, payload] of stream) {
      const chunks = mode === "messages" ? tokenChunks(payload) : updateChunks(payload as NodeUpdates);
      for (const chunk of chunks) await emit(chunk);
    }
  }
  const interrupts = pendingInterrupts(await graph.getState(config));
  return interrupts.length > 0 ? { status: "interrupted", interrupts } : { status: "success" };
}

const ALREADY_RAN = Symbol("already ran");
type GraphInput = Parameters<AssistantGraph["stream"]>[0];

/**
 * What to feed the graph. A message is added once, under its queue id: when an earlier attempt of
 * the same message already reached the checkpoint (its replica stopped before completing it), the
 * run continues from that checkpoint instead of adding the message twice.
 *
 * "Unfinished" is read from `tasks`, not `next`: `next` leaves out tasks that finished on a replica
 * that died before checkpointing their step. Their output (the model's answer, say) waits in the
 * checkpointer as pending writes, which only a resumed run (input `null`) applies; new input would
 * discard it.
 *
 * New input records where the run begins in the thread's messages (see `runBoundaries`).
 */
async function planInput(
  graph: AssistantGraph,
  config: LangGraphRunnableConfig,
  messageId: string,
  content: RunContent,
): Promise<GraphInput | typeof ALREADY_RAN> {
  const state = await graph.getState(config);
  const waiting = pendingInterrupts(state).length > 0;
  const unfinished = state.tasks.length > 0;
  if (content.command) {
    if (waiting) return new Command({ resume: content.command.resume, update: recordRunStart(state.values, messageId) });
    if (unfinished) return null;
    throw new NothingToResumeError();
  }
  const messages: BaseMessage[] = state.values.messages ?? [];
  if (!messages.some((message) => message.id === messageId)) {
    return { messages: [new HumanMessage({ id: messageId, content: content.message ?? "" })], ...recordRunStart(state.values, messageId) };
  }
  return unfinished && !waiting ? null : ALREADY_RAN;
}

function tokenChunks([message, metadata]: [BaseMessage, Record<string, unknown>]): MessageChunk[] {
  if (metadata.langgraph_node !== AGENT_NODE || !AIMessageChunk.isInstance(message) || !message.text) return [];
  return [{ type: MessageChunkTypes.MESSAGE_CHUNK, data: { id: message.id, content: message.text } }];
}

type NodeUpdates = Record<string, { messages?: BaseMessage[] } | undefined> & { __metadata__?: { cached?: boolean } };

function updateChunks(updates: NodeUpdates): MessageChunk[] {
  const chunks: MessageChunk[] = [];
  // A node's output replayed from pending writes (its replica died before the checkpoint): the model
  // did not run here, so its answer was never streamed token by token. Stream it whole.
  const replayed = updates.__metadata__?.cached === true;
  for (const message of updates[AGENT_NODE]?.messages ?? []) {
    if (!AIMessage.isInstance(message) && !AIMessageChunk.isInstance(message)) continue;
    if (replayed && message.text) chunks.push({ type: MessageChunkTypes.MESSAGE_CHUNK, data: { id: message.id, content: message.text } });
    for (const call of message.tool_calls ?? []) {
      chunks.push({ type: MessageChunkTypes.TOOL_CALL, data: { id: call.id, name: call.name, args: call.args } });
    }
  }
  for (const message of updates[TOOLS_NODE]?.messages ?? []) {
    if (!ToolMessage.isInstance(message)) continue;
    chunks.push({
      type: MessageChunkTypes.TOOL_RESULT,
      data: { toolCallId: message.tool_call_id, name: message.name, content: message.text, status: message.status },
    });
  }
  return chunks;
}
