import {
  type FencedTenure,
  type FinishedRunStatus,
  type MessageQueueStore,
  type LatticeObserver,
  type Logger,
  type PendingMessage,
  type QueueNotice,
  type QueueWakeup,
  type ThreadRunScope,
  threadRunLeaseKey,
} from "@axiom-lattice/core";
import type { Assistant, AssistantStore, ItemStore, LeaseStore, RunEventLog } from "@axiom-lattice/protocols";
import type { TaskRuntimeOptions } from "../tasks/taskRuntimeDeps";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { StateSnapshot } from "@langchain/langgraph";
import { checkpointConfig } from "../graph/checkpointThread";
import { flushCheckpointWrites, lendingCheckpointer, withFencedCheckpoints } from "../graph/fencedCheckpointer";
import { AssistantGraphs } from "../graph/assistantGraphs";
import { type AssistantGraph, buildReactGraph } from "../graph/reactGraph";
import { type DeployedGraphs, GraphNotFoundError, InvalidStateUpdateError, REACT_GRAPH_ID, SubgraphNotFoundError } from "../graph/deployedGraphs";
import { type ModelProviderCatalog, resolveModelConfig } from "../models/catalogModelConfig";
import type { ChunkBuffers } from "./chunkBuffers";
import type { ModelProviderRegistry } from "../models/modelRegistry";
import type { UpstreamPolicy } from "../models/upstreamPolicy";
import { ScriptedChatModel } from "../models/scriptedChatModel";
import type { RunEventWaits } from "./runEventWaits";
import type { RunGraphSettings } from "./runContent";
import type { RunSlots } from "./runSlots";
import { createTaskTool } from "../tasks/taskTool";
import type { DisabledToolSource, TenantToolSource, ToolRegistry } from "../tools/toolRegistry";

/** What the agents and thread processors of one manager share. */
/** A run whose outcome a replica recorded: its thread, its message as it was claimed, and the outcome. */
export interface CompletedRun {
  scope: ThreadRunScope;
  message: PendingMessage;
  status: FinishedRunStatus;
  error?: string;
}

export interface RuntimeContext {
  queue: MessageQueueStore;
  leases: LeaseStore;
  assistants: Pick<AssistantStore, "getAssistant">;
  /** The tenants' model providers, which assistants may name. Absent: only registered providers. */
  modelProviders?: ModelProviderCatalog;
  checkpointer: BaseCheckpointSaver;
  /** The tenants' long-term memory: a run's graph has its tenant's as its LangGraph store. */
  items: ItemStore;
  wakeup: QueueWakeup;
  buffers: ChunkBuffers;
  /** Every run's stream, durable and readable on any replica. Absent: streams live in this replica's buffers only. */
  runEvents?: { log: RunEventLog; waits: RunEventWaits };
  /** The queue store reaches the lease store and `runEvents` (see `AgentRuntimeOptions.joinedStores`). */
  joinedStores: boolean;
  /** How long a run's events wait to be written to the run event log together. */
  runEventFlushMs: number;
  claimLeaseMs: number;
  threadRunTtlMs: number;
  /** How often a stream of a message not running here checks the store for its end. */
  streamPollMs: number;
  /** Labels this replica's lease holders and claims. */
  replicaId: string;
  logger: Logger;
  observer: LatticeObserver;
  /** Told of each run whose outcome this replica recorded. */
  onRunCompleted?: (run: CompletedRun) => void;
  /** Bounds each model API call of a run. */
  upstream: UpstreamPolicy;
  /** The model providers assistants may name besides their tenant's catalog; this runtime's own. */
  models: ModelProviderRegistry;
  /** The tools assistants may name besides their tenant's; this runtime's own. */
  tools: ToolRegistry;
  /** Bounds the threads this replica runs at once. */
  runSlots: RunSlots;
  /** The graphs the operator deployed beside the ReAct agent, which assistants may run. Absent: only the ReAct agent. */
  graphs?: DeployedGraphs;
  /** Tasks: delegation (the `task` tool) and settling the runs of tasks. Absent: no tasks. */
  tasks?: TaskRuntimeOptions;
  /** Each tenant's own tools (its MCP servers'), which its assistants may list. Absent: none. */
  tenantTools?: TenantToolSource;
  /** The tools each tenant switched off: left out of its runs even when an assistant lists them. Absent: none. */
  disabledTools?: DisabledToolSource;
  /** Gets a thread's queue processed: this replica's processor at once, the peers by wake-up. */
  wake(scope: ThreadRunScope): Promise<void>;
  /** True once the manager shuts down: no new runs start. */
  isClosed(): boolean;
}

/**
 * The ReAct graph of an assistant's configuration, with the run's own settings over it. Graphs are
 * compiled once per configuration and shared by its runs (see {@link AssistantGraphs}): what is the
 * run's own (its thread, its caller for the `task` tool) comes in its config.
 */
export async function reactGraphOf(context: RuntimeContext, scope: ThreadRunScope, stored: Assistant, settings?: RunGraphSettings): Promise<AssistantGraph> {
  // The run's own settings, each over the assistant's, for this run only.
  const assistant = { ...stored, ...settings };
  const model = await resolveModelConfig(scope.tenantId, assistant.model, context.modelProviders, context.models);
  // A tool switched off after the assistant was written is left out, not a failure of every run.
  const disabled = await context.disabledTools?.(scope.tenantId);
  const tools = disabled ? assistant.tools.filter((name) => !disabled.has(name)) : assistant.tools;
  return assistantGraphsOf(context).graphOf({ ...assistant, model, tools }, context.tenantTools?.(scope.tenantId));
}

const assistantGraphs = new WeakMap<RuntimeContext, AssistantGraphs>();

function assistantGraphsOf(context: RuntimeContext): AssistantGraphs {
  let graphs = assistantGraphs.get(context);
  if (!graphs) {
    graphs = new AssistantGraphs(context.checkpointer, context.tasks ? [createTaskTool(context)] : [], context.upstream, context);
    assistantGraphs.set(context, graphs);
  }
  return graphs;
}

const stateReaders = new WeakMap<BaseCheckpointSaver, AssistantGraph>();

/**
 * The graph that reads (and updates) a thread's checkpointed state: the thread's deployed graph, whose
 * channels its state is made of; otherwise the ReAct graph. Its shape does not depend on the
 * assistant's model or tools, so one graph without either reads every ReAct thread of a
 * checkpointer: a read never fails because a tool or provider the assistant names is gone since its
 * last run (an MCP server disconnected, a provider removed), and it builds no model.
 */
export async function stateReaderOf(context: Pick<RuntimeContext, "checkpointer" | "graphs">, graphId?: string, graphConfig?: Record<string, unknown>): Promise<AssistantGraph> {
  if (graphId !== undefined && graphId !== REACT_GRAPH_ID) {
    if (!context.graphs?.has(graphId)) throw new GraphNotFoundError(graphId);
    return context.graphs.graphFor(graphId, graphConfig);
  }
  let reader = stateReaders.get(context.checkpointer);
  if (!reader) {
    reader = buildReactGraph({ model: new ScriptedChatModel(), tools: [] }, context.checkpointer);
    stateReaders.set(context.checkpointer, reader);
  }
  return reader;
}

/** What a thread's state is read with. */
export type StateContext = Pick<RuntimeContext, "checkpointer" | "graphs">;

export interface StateReadOptions {
  /** An earlier checkpoint; default the latest. */
  checkpointId?: string;
  /** A subgraph's namespace (`node:task id`): its state instead of the root graph's. */
  checkpointNs?: string;
  /** Each subgraph task's state, read with it (LangGraph's `subgraphs`). */
  subgraphs?: boolean;
  /** The graph whose state the thread holds; default the ReAct graph. */
  graphId?: string;
  /** The thread's config (LangGraph's): a deployed graph made by a factory is made from it. */
  graphConfig?: Record<string, unknown>;
}

/** The thread's checkpointed state, read with its graph (see {@link stateReaderOf}). */
export async function readThreadState(context: StateContext, scope: ThreadRunScope, { checkpointId, checkpointNs, subgraphs, graphId, graphConfig }: StateReadOptions = {}): Promise<StateSnapshot> {
  const config = checkpointConfig(scope, checkpointId, checkpointNs);
  const graph = await graphAt(await threadGraphOf(context, scope, graphId, graphConfig), checkpointNs);
  return graph.getState(checkpointNs ? lendingCheckpointer(config, context.checkpointer) : config, subgraphs ? { subgraphs } : undefined);
}

/**
 * The graph whose state a namespace names: the thread's graph, or (`checkpointNs`, `node:task id|…`)
 * its subgraph there, found as LangGraph finds it (task ids and step numbers left out). Found here, not
 * by LangGraph: a config that lends a checkpointer (a fenced write's) stops LangGraph looking.
 */
async function graphAt(graph: AssistantGraph, checkpointNs: string | undefined): Promise<AssistantGraph> {
  if (!checkpointNs) return graph;
  const path = checkpointNs
    .split("|")
    .filter((part) => !/^\d+$/.test(part))
    .map((part) => part.split(":")[0])
    .join("|");
  for await (const [, subgraph] of graph.getSubgraphsAsync(path, true)) return subgraph as unknown as AssistantGraph;
  throw new SubgraphNotFoundError(checkpointNs);
}

/**
 * The graph of a thread's state: the one named, else the one whose run (or state update) wrote the
 * checkpoint read (deployed graphs' checkpoints carry their `graph_id`), else the ReAct graph. Only a
 * gateway serving deployed graphs reads the checkpoint to know.
 */
async function threadGraphOf(context: StateContext, scope: ThreadRunScope, graphId?: string, graphConfig?: Record<string, unknown>): Promise<AssistantGraph> {
  return stateReaderOf(context, await threadGraphIdOf(context, scope, graphId), graphConfig);
}

/** The thread's graph, as its latest root checkpoint names it (a subgraph's are its parent's). */
async function threadGraphIdOf(context: StateContext, scope: ThreadRunScope, graphId?: string): Promise<string | undefined> {
  if (graphId !== undefined || !context.graphs) return graphId;
  const written = (await context.checkpointer.getTuple(checkpointConfig(scope)))?.metadata as Record<string, unknown> | undefined;
  return typeof written?.graph_id === "string" ? written.graph_id : undefined;
}

export interface ThreadHistoryOptions {
  /** At most this many checkpoints, newest first. */
  limit: number;
  /** Only checkpoints older than this one. */
  before?: string;
  /** Only checkpoints whose metadata holds these values. */
  metadata?: Record<string, unknown>;
  /** A subgraph's namespace (`node:task id`): its checkpoints instead of the root graph's. */
  checkpointNs?: string;
  /** The graph whose state the thread holds; default the ReAct graph. */
  graphId?: string;
  /** As {@link StateReadOptions.graphConfig}. */
  graphConfig?: Record<string, unknown>;
}

/** The thread's checkpoints, newest first, read with its graph (see {@link stateReaderOf}). */
export async function readThreadHistory(context: StateContext, scope: ThreadRunScope, options: ThreadHistoryOptions): Promise<StateSnapshot[]> {
  const snapshots: StateSnapshot[] = [];
  const { checkpointNs } = options;
  const before = options.before === undefined ? undefined : checkpointConfig(scope, options.before, checkpointNs);
  const reader = await graphAt(await threadGraphOf(context, scope, options.graphId, options.graphConfig), checkpointNs);
  const config = checkpointConfig(scope, undefined, checkpointNs);
  for await (const snapshot of reader.getStateHistory(checkpointNs ? lendingCheckpointer(config, context.checkpointer) : config, { limit: options.limit, before, filter: options.metadata })) {
    snapshots.push(snapshot);
  }
  return snapshots;
}

/** An update of a thread's state (LangGraph's `updateState`). */
export interface StateWrite {
  values: Record<string, unknown>;
  /** The node the values are written as. */
  asNode?: string;
  /** Over this earlier checkpoint (a fork: the new checkpoint becomes the latest); default the latest. */
  checkpointId?: string;
  /** A subgraph's namespace (`node:task id`): the values go into its state. */
  checkpointNs?: string;
  /** The graph whose state the thread holds; default the ReAct graph. */
  graphId?: string;
  /** As {@link StateReadOptions.graphConfig}. */
  graphConfig?: Record<string, unknown>;
}

/**
 * Writes `values` into the thread's state as if node `asNode` had returned them (LangGraph's
 * `updateState`); returns the new checkpoint's id. The caller holds the thread's run lease, whose
 * `tenure` fences the write.
 */
export async function writeThreadState(context: StateContext, scope: ThreadRunScope, tenure: FencedTenure, { values, asNode, checkpointId, checkpointNs, graphId, graphConfig }: StateWrite): Promise<string> {
  const addressed = checkpointConfig(scope, checkpointId, checkpointNs);
  const threadGraphId = await threadGraphIdOf(context, scope, graphId);
  const deployed = threadGraphId !== undefined && threadGraphId !== REACT_GRAPH_ID;
  // The update's checkpoint says which graph's state it is, as a deployed graph's run's do.
  const fenced = withFencedCheckpoints(addressed, context.checkpointer, tenure, deployed ? { graph_id: threadGraphId } : undefined);
  const graph = await graphAt(await stateReaderOf(context, threadGraphId, graphConfig), checkpointNs);
  const written = await graph.updateState(checkpointNs ? lendingCheckpointer(fenced, context.checkpointer) : fenced, values, asNode).catch((error: unknown) => {
    throw InvalidStateUpdateError.from(error);
  });
  // The fenced checkpointer holds an input's checkpoint and trailing writes back for a next step this update has none of.
  await flushCheckpointWrites(fenced);
  return written.configurable?.checkpoint_id as string;
}

// Buffers are per process; keying them by thread too keeps one tenant off another's message ids.
/** What every buffer key of the thread's messages starts with. */
export const threadBufferPrefix = (scope: ThreadRunScope) => `${threadRunLeaseKey(scope)}\u0000`;

// The message's queue sequence (which the store never hands out twice) ties a buffer to that stored
// message: one deleted with its thread, and a later one added under the same id, never share it.
export const bufferKey = (scope: ThreadRunScope, message: Pick<PendingMessage, "id" | "sequence">) =>
  `${threadBufferPrefix(scope)}${message.id}\u0000${message.sequence}`;

/**
 * Tells the peers the thread has pending messages, or (`abortRequested`) that an abort of its run was
 * recorded; a failure only delays them until their sweep, or the run's next claim renewal.
 */
export async function notifyPeers(context: Pick<RuntimeContext, "wakeup" | "logger">, notice: QueueNotice): Promise<void> {
  try {
    await context.wakeup.notify(notice);
  } catch (error) {
    context.logger.warn({ err: error, threadId: notice.threadId }, "queue notice not sent; peers find it on their sweep or claim renewal");
  }
}
