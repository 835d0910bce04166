import {
  type FencedTenure,
  type FinishedRunStatus,
  type MessageQueueStore,
  type LatticeObserver,
  type Logger,
  type PendingMessage,
  type QueueNotice,
  type QueueScope,
  type QueueWakeup,
  type ThreadRunScope,
  threadRunLeaseKey,
} from "@axiom-lattice/core";
import type { AssistantStore, ItemStore, LeaseStore, RunEventLog } from "@axiom-lattice/protocols";
import type { TaskRuntimeOptions } from "../tasks/taskRuntimeDeps";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { StateSnapshot } from "@langchain/langgraph";
import { checkpointConfig } from "../graph/checkpointThread";
import { withFencedCheckpoints } from "../graph/fencedCheckpointer";
import { AssistantGraphs } from "../graph/assistantGraphs";
import { type AssistantGraph, buildReactGraph } from "../graph/reactGraph";
import { type ModelProviderCatalog, resolveModelConfig } from "../models/catalogModelConfig";
import type { ChunkBuffers } from "./chunkBuffers";
import { AssistantNotFoundError } from "./errors";
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

export const queueScopeOf = ({ tenantId, assistantId }: ThreadRunScope): QueueScope => ({ tenantId, assistantId });

/**
 * The thread's graph, of its assistant's current configuration (or that of the assistant the run
 * names, on a thread not tied to one), with the run's own settings over it. Graphs are compiled once
 * per configuration and shared by its runs (see {@link AssistantGraphs}): what is the run's own (its
 * thread, its caller for the `task` tool) comes in its config.
 */
export async function loadThreadGraph(
  context: RuntimeContext,
  scope: ThreadRunScope,
  run: { assistantId?: string | undefined; settings?: RunGraphSettings | undefined } = {},
): Promise<AssistantGraph> {
  const assistantId = run.assistantId ?? scope.assistantId;
  const stored = await context.assistants.getAssistant(scope.tenantId, assistantId);
  if (!stored) throw new AssistantNotFoundError(scope.tenantId, assistantId);
  // The run's own settings, each over the assistant's, for this run only.
  const assistant = { ...stored, ...run.settings };
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
 * The thread's checkpointed state. The graph's shape does not depend on the assistant's model or
 * tools, so one graph without either reads every thread of a checkpointer: a read never fails
 * because a tool or provider the assistant names is gone since its last run (an MCP server
 * disconnected, a provider removed), and it builds no model.
 */
export function readThreadState(context: Pick<RuntimeContext, "checkpointer">, scope: ThreadRunScope, checkpointId?: string): Promise<StateSnapshot> {
  return stateReaderOf(context).getState(checkpointConfig(scope, checkpointId));
}

export interface ThreadHistoryOptions {
  /** At most this many checkpoints, newest first. */
  limit: number;
  /** Only checkpoints older than this one. */
  before?: string;
  /** Only checkpoints whose metadata holds these values. */
  metadata?: Record<string, unknown>;
}

/** The thread's checkpoints, newest first (see {@link readThreadState} for the graph that reads them). */
export async function readThreadHistory(context: Pick<RuntimeContext, "checkpointer">, scope: ThreadRunScope, options: ThreadHistoryOptions): Promise<StateSnapshot[]> {
  const snapshots: StateSnapshot[] = [];
  const before = options.before === undefined ? undefined : checkpointConfig(scope, options.before);
  for await (const snapshot of stateReaderOf(context).getStateHistory(checkpointConfig(scope), { limit: options.limit, before, filter: options.metadata })) {
    snapshots.push(snapshot);
  }
  return snapshots;
}

/**
 * Writes `values` into the thread's state as if node `asNode` had returned them (LangGraph's
 * `updateState`), over its latest checkpoint or the earlier one named (a fork: the new checkpoint
 * becomes the latest); returns the new checkpoint's id. The caller holds the thread's run lease, whose
 * `tenure` fences the write.
 */
export async function writeThreadState(
  context: Pick<RuntimeContext, "checkpointer">,
  scope: ThreadRunScope,
  tenure: FencedTenure,
  { values, asNode, checkpointId }: { values: Record<string, unknown>; asNode?: string; checkpointId?: string },
): Promise<string> {
  const config = withFencedCheckpoints(checkpointConfig(scope, checkpointId), context.checkpointer, tenure);
  const written = await stateReaderOf(context).updateState(config, values, asNode);
  return written.configurable?.checkpoint_id as string;
}

export function stateReaderOf(context: Pick<RuntimeContext, "checkpointer">): AssistantGraph {
  let reader = stateReaders.get(context.checkpointer);
  if (!reader) {
    reader = buildReactGraph({ model: new ScriptedChatModel(), tools: [] }, context.checkpointer);
    stateReaders.set(context.checkpointer, reader);
  }
  return reader;
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
export async function notifyPeers(context: RuntimeContext, notice: QueueNotice): Promise<void> {
  try {
    await context.wakeup.notify(notice);
  } catch (error) {
    context.logger.warn({ err: error, threadId: notice.threadId }, "queue notice not sent; peers find it on their sweep or claim renewal");
  }
}
