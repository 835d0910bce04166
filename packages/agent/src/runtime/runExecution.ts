import { type MessageChunk, MessageChunkTypes, type ErrorCode } from "@axiom-lattice/protocols";
import { AIMessage, AIMessageChunk, type BaseMessage, HumanMessage, ToolMessage, coerceMessageLikeToMessage } from "@langchain/core/messages";
import { Command, GraphRecursionError, type LangGraphRunnableConfig, START, type StreamMode } from "@langchain/langgraph";
import { flushCheckpointWrites } from "../graph/fencedCheckpointer";
import { type GraphStreamItemMode, graphStream } from "../graph/graphStream";
import { GraphEvents, type GraphStreamMode, graphModesFor } from "../graph/graphStreamEvents";
import { AGENT_NODE, type AssistantGraph, type GRAPH_NODES, TOOLS_NODE } from "../graph/reactGraph";
import { type PendingInterrupt, pendingInterrupts } from "../graph/pendingInterrupts";
import { type ThreadGraphState, recordRunStart } from "../graph/runBoundaries";
import type { RunContent } from "./runContent";
import { ALREADY_RAN, type RunInput, deployedRunInput } from "./deployedRunInput";

/** The ReAct graph's nodes, as `Command.goto` names them (checked where the run was queued). */
type ReactNode = (typeof GRAPH_NODES)[number];

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
  /** A graph the operator deployed: its input goes in as given (see `deployedRunInput`). */
  deployed: boolean;
  /** Addresses the thread's checkpoints. */
  config: LangGraphRunnableConfig;
  /** The thread's id as clients know it (LangGraph events name it). */
  threadId: string;
  messageId: string;
  content: RunContent;
  /** The runs this one rolled back (`multitask_strategy: rollback`): a deployed graph's thread goes back to before them. */
  rolledBack?: readonly string[];
  signal: AbortSignal;
  /** Streams a chunk; the run waits while it settles (the run's output holds it back until its events are logged). */
  emit(chunk: MessageChunk): Promise<void>;
}

/** The run took more graph steps than its recursion limit allows (LangGraph's `GraphRecursionError`). */
export class RecursionLimitError extends Error {
  readonly code = "GRAPH_RECURSION_LIMIT" satisfies ErrorCode;

  constructor(limit: number) {
    super(`Recursion limit of ${limit} reached without hitting a stop condition`);
    this.name = "RecursionLimitError";
  }
}

/** LangGraph's default recursion limit, for the error of a run that named none. */
const DEFAULT_RECURSION_LIMIT = 25;

export type ExecutedRun = { status: "success" } | { status: "interrupted"; interrupts: PendingInterrupt[] };

/**
 * Runs one queued message through the graph, streaming model tokens, tool calls and tool results.
 * Throws when the graph fails or `signal` aborts it.
 */
export async function executeRun({ graph, deployed, config, threadId, messageId, content, rolledBack = [], signal, emit }: RunExecution): Promise<ExecutedRun> {
  const { interruptBefore, interruptAfter, recursionLimit, streamSubgraphs } = content.graph ?? {};
  const { startConfig, input } = deployed ? await deployedRunInput(graph, config, messageId, content, rolledBack) : await reactRunInput(graph, config, messageId, content);
  if (input !== ALREADY_RAN) {
    // A run queued with LangGraph stream modes emits those events alone; a run of the /api dialect
    // its tokens, tool calls and tool results. The graph streams only the modes that serve them: a
    // mode nobody reads costs every step (`messages` puts a callback handler on every runnable).
    const modes = content.streamModes;
    const graphEvents = modes && new GraphEvents({ modes, threadId, runId: messageId });
    const runConfig = recursionLimit === undefined ? startConfig : { ...startConfig, recursionLimit };
    const streamMode = modes ? graphModesOrUpdates(modes) : API_DIALECT_MODES;
    const events = modes?.includes("events") ?? false;
    const stream = graphStream(graph, input, { config: runConfig, streamMode, signal, events, runId: messageId, interruptBefore, interruptAfter, subgraphs: streamSubgraphs });
    try {
      for await (const [mode, payload, namespace] of stream) {
        for (const chunk of graphEvents ? graphEvents.chunksOf(mode, payload, namespace) : apiDialectChunks(mode, payload)) await emit(chunk);
      }
    } catch (error) {
      // The failed task's writes, as LangGraph stores them; the failure is what the run reports.
      await flushCheckpointWrites(startConfig).catch(() => undefined);
      // A deployed graph's failure is reported as it is, as LangGraph Platform reports it.
      throw error instanceof GraphRecursionError && !deployed ? new RecursionLimitError(recursionLimit ?? DEFAULT_RECURSION_LIMIT) : error;
    }
  }
  const state = await graph.getState(config);
  const interrupts = pendingInterrupts(state);
  if (interrupts.length > 0) return { status: "interrupted", interrupts };
  // Paused before or after a node the run named: the thread waits, as on an interrupt, for a run that continues it.
  const paused = (interruptBefore !== undefined || interruptAfter !== undefined) && state.next.length > 0;
  return paused ? { status: "interrupted", interrupts: [] } : { status: "success" };
}

/**
 * Records a run's input in the thread without running the graph, as a run whose first step failed
 * leaves it: a run that could not start (its assistant names a tool that is gone, say) still keeps
 * the user's message in the conversation. A resume has nothing to keep; input already recorded is
 * not recorded twice.
 */
export async function recordRunInput(graph: AssistantGraph, config: LangGraphRunnableConfig, messageId: string, content: RunContent): Promise<void> {
  if (content.command) return;
  const startConfig = await startingPoint(graph, config, messageId, content);
  const input = await planInput(graph, startConfig, messageId, content);
  if (input === ALREADY_RAN || input === null || input instanceof Command) return;
  await graph.updateState(startConfig, input, START);
  await flushCheckpointWrites(startConfig);
}

/**
 * Where the run starts: the thread's latest checkpoint, or the earlier one the run names (a fork: the
 * run's checkpoints follow that one and become the thread's latest). An attempt that finds the run
 * already started in the latest checkpoint (an earlier attempt's replica stopped) goes on from there.
 */
async function startingPoint(graph: AssistantGraph, config: LangGraphRunnableConfig, messageId: string, content: RunContent): Promise<LangGraphRunnableConfig> {
  const checkpointId = content.graph?.checkpointId;
  if (checkpointId === undefined || runStarted((await graph.getState(config)).values, messageId)) return config;
  return { ...config, configurable: { ...config.configurable, checkpoint_id: checkpointId } };
}

/** The ReAct graph's run: where it starts, and what it is fed (see {@link planInput}). */
async function reactRunInput(graph: AssistantGraph, config: LangGraphRunnableConfig, messageId: string, content: RunContent): Promise<RunInput> {
  const startConfig = await startingPoint(graph, config, messageId, content);
  return { startConfig, input: await planInput(graph, startConfig, messageId, content) };
}

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
 * New input records where the run begins in the thread's messages (see `runBoundaries`). LangGraph
 * input is added as given (its messages keep the ids their client chose): whether it was added is
 * read from that record, written in the same checkpoint.
 */
async function planInput(
  graph: AssistantGraph,
  config: LangGraphRunnableConfig,
  messageId: string,
  content: RunContent,
): Promise<RunInput["input"]> {
  const state = await graph.getState(config);
  const waiting = pendingInterrupts(state).length > 0;
  const unfinished = state.tasks.length > 0;
  if (content.command) {
    const { resume, update, goto } = content.command;
    // The update is applied with the record of the run's start: once, whichever attempt applies it.
    const command = (recorded: boolean) =>
      new Command({
        ...(resume === undefined ? {} : { resume }),
        ...(recorded ? {} : { update: { ...(update ? { messages: (update.messages ?? []).map(asMessage) } : {}), ...recordRunStart(state.values, messageId) } }),
        ...(goto ? { goto: goto as ReactNode | ReactNode[] } : {}),
      });
    if (resume !== undefined) {
      if (waiting) return command(false);
      if (unfinished) return null;
      throw new NothingToResumeError();
    }
    if (!runStarted(state.values, messageId)) return command(false);
    return unfinished && !waiting ? null : ALREADY_RAN;
  }
  // Input null: the thread goes on from its checkpoint, whatever it waits on (an interrupt asks again).
  if (content.input === null) return unfinished ? null : ALREADY_RAN;
  if (content.input) {
    if (!runStarted(state.values, messageId)) return { messages: (content.input.messages ?? []).map(asMessage), ...recordRunStart(state.values, messageId) };
    return unfinished && !waiting ? null : ALREADY_RAN;
  }
  const messages: BaseMessage[] = state.values.messages ?? [];
  if (!messages.some((message) => message.id === messageId)) {
    return { messages: [new HumanMessage({ id: messageId, content: content.message ?? "" })], ...recordRunStart(state.values, messageId) };
  }
  return unfinished && !waiting ? null : ALREADY_RAN;
}

const runStarted = (state: Partial<ThreadGraphState>, runId: string) => (state.runStarts ?? []).some((start) => start.runId === runId);

// Checked when queued; a message LangChain cannot read fails the run.
const asMessage = (message: unknown): BaseMessage => coerceMessageLikeToMessage(message as Parameters<typeof coerceMessageLikeToMessage>[0]);

/** The graph's modes the /api dialect's chunks are made of. */
const API_DIALECT_MODES: StreamMode[] = ["messages", "updates"];

/** The graph's modes that serve LangGraph `modes`; `updates` when none does (`events` alone: the graph streams anyway). */
function graphModesOrUpdates(modes: readonly GraphStreamMode[]): StreamMode[] {
  const graphModes = graphModesFor(modes);
  return graphModes.length > 0 ? graphModes : ["updates"];
}

function apiDialectChunks(mode: GraphStreamItemMode, payload: unknown): MessageChunk[] {
  if (mode === "messages") return tokenChunks(payload as [BaseMessage, Record<string, unknown>]);
  return mode === "updates" ? updateChunks(payload as NodeUpdates) : [];
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
      data: { tool_call_id: message.tool_call_id, name: message.name, content: message.text, status: message.status },
    });
  }
  return chunks;
}
