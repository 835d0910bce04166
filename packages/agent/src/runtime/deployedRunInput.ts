import { Command, type LangGraphRunnableConfig, type StateSnapshot } from "@langchain/langgraph";
import { pendingInterrupts } from "../graph/pendingInterrupts";
import type { AssistantGraph } from "../graph/reactGraph";
import type { RunContent } from "./runContent";

/** The run already did all it could in an earlier attempt: nothing to feed the graph. */
export const ALREADY_RAN = Symbol("already ran");

/** Where a run starts, and what its graph is fed (`null`: it goes on from its checkpoint). */
export interface RunInput {
  startConfig: LangGraphRunnableConfig;
  input: Parameters<AssistantGraph["stream"]>[0] | typeof ALREADY_RAN;
}

/**
 * Where a run of a deployed graph starts, and what the graph is fed: its input as given, or its
 * command as LangGraph's `Command`, from the thread's latest checkpoint or the earlier one it names
 * (a fork).
 *
 * An attempt that follows a replica's death must not feed the input twice. Every checkpoint a run
 * writes carries its run id (see `runTarget`), so the thread's latest checkpoint says whether this
 * run already started. If it did, the run goes on from there with input `null`: LangGraph runs what
 * is unfinished, applying the writes of tasks that finished before the replica died. When nothing is
 * unfinished, or the graph waits on an interrupt this run raised, the run already ran.
 *
 * A run that rolled others back (`multitask_strategy: rollback`) starts where the thread was before
 * the first of them, as on LangGraph Platform: their checkpoints are left behind, on a branch.
 */
export async function deployedRunInput(
  graph: AssistantGraph,
  config: LangGraphRunnableConfig,
  messageId: string,
  content: RunContent,
  rolledBack: readonly string[] = [],
): Promise<RunInput> {
  const latest = await graph.getState(config);
  if ((latest.metadata as Record<string, unknown> | undefined)?.run_id === messageId) {
    const unfinished = latest.tasks.length > 0 && pendingInterrupts(latest).length === 0;
    return { startConfig: config, input: unfinished ? null : ALREADY_RAN };
  }
  const checkpointId = content.graph?.checkpointId ?? (await beforeRuns(graph, config, rolledBack));
  const startConfig = checkpointId === undefined ? config : { ...config, configurable: { ...config.configurable, checkpoint_id: checkpointId } };
  if (!content.command) return { startConfig, input: (content.input ?? null) as RunInput["input"] };
  const { resume, update, goto } = content.command;
  const command = new Command({ ...(resume === undefined ? {} : { resume }), ...(update ? { update } : {}), ...(goto ? { goto } : {}) });
  return { startConfig, input: command as unknown as RunInput["input"] };
}

/**
 * The checkpoint the thread was at before the earliest of `runs` began: the parent of that run's
 * first checkpoint, or (a run that began the thread) that first checkpoint itself, which holds its
 * input only: new input replaces it. Undefined when none of them wrote one.
 */
async function beforeRuns(graph: AssistantGraph, config: LangGraphRunnableConfig, runs: readonly string[]): Promise<string | undefined> {
  let first: StateSnapshot | undefined;
  for (const runId of runs) {
    for await (const snapshot of graph.getStateHistory(config, { filter: { run_id: runId } })) {
      // Checkpoint ids are time-ordered (UUIDv6): the smallest is the earliest.
      if (!first || idOf(snapshot) < idOf(first)) first = snapshot;
    }
  }
  if (!first) return undefined;
  return (first.parentConfig ?? first.config).configurable?.checkpoint_id as string | undefined;
}

const idOf = (snapshot: StateSnapshot): string => String(snapshot.config.configurable?.checkpoint_id ?? "");
