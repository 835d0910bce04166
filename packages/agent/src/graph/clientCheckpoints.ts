import type { RunnableConfig } from "@langchain/core/runnables";
import { clientStateValues, toClientJson } from "./clientJson";

/** Where a state was checkpointed, as LangGraph clients read it: the client's thread id, never the checkpointer's. */
export interface ClientCheckpoint {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string | null;
  checkpoint_map: null;
}

/** The checkpoint a graph config addresses, under the thread id clients know. */
export function clientCheckpointOf(threadId: string, config: RunnableConfig | undefined): ClientCheckpoint {
  return {
    thread_id: threadId,
    checkpoint_ns: (config?.configurable?.checkpoint_ns as string | undefined) ?? "",
    checkpoint_id: (config?.configurable?.checkpoint_id as string | undefined) ?? null,
    checkpoint_map: null,
  };
}

/**
 * A graph config as clients read it: the checkpointer's tenant-qualified thread id replaced by the
 * client's, LangGraph's internal keys (`__pregel_…`) and callbacks left out, as LangGraph Platform does.
 */
function clientConfigOf(threadId: string, config: RunnableConfig | undefined): unknown {
  if (!config) return null;
  const { callbacks: _callbacks, signal: _signal, configurable = {}, metadata, ...rest } = config;
  const ownKeys = Object.fromEntries(Object.entries(configurable).filter(([key]) => !key.startsWith("__")));
  return toClientJson({ ...rest, configurable: { ...ownKeys, thread_id: threadId }, ...(metadata ? { metadata: { ...metadata, thread_id: threadId } } : {}) });
}

interface GraphCheckpointPayload {
  config?: RunnableConfig;
  parentConfig?: RunnableConfig;
  values?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  next?: string[];
  tasks?: unknown[];
}

/**
 * A checkpoint of the graph's `checkpoints` stream (and `debug`'s `checkpoint` events) as LangGraph
 * Platform sends it: values as clients read them, `config`/`parent_config` and the `checkpoint` /
 * `parent_checkpoint` they address, under the client's thread id.
 */
export function clientCheckpointPayload(threadId: string, payload: GraphCheckpointPayload): Record<string, unknown> {
  const { config, parentConfig, values = {}, metadata = {}, next = [], tasks = [] } = payload;
  return {
    config: clientConfigOf(threadId, config),
    parent_config: clientConfigOf(threadId, parentConfig),
    values: clientStateValues(values),
    metadata: toClientJson(metadata),
    next,
    tasks: toClientJson(tasks),
    checkpoint: clientCheckpointOf(threadId, config),
    parent_checkpoint: parentConfig ? clientCheckpointOf(threadId, parentConfig) : null,
  };
}

/** A task of the graph's `tasks` stream (and `debug`'s `task` / `task_result` events): its input as the state's client values. */
export function clientTaskPayload(payload: Record<string, unknown>): Record<string, unknown> {
  const { input, ...task } = payload;
  const isState = input !== null && typeof input === "object" && !Array.isArray(input);
  return { ...(toClientJson(task) as Record<string, unknown>), ...(input === undefined ? {} : { input: isState ? clientStateValues(input as Record<string, unknown>) : toClientJson(input) }) };
}
