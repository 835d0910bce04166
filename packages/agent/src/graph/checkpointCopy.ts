import type { BaseCheckpointSaver, CheckpointTuple, PendingWrite } from "@langchain/langgraph-checkpoint";
import { type CheckpointThreadRef, checkpointConfig, checkpointThreadId } from "./checkpointThread";

/**
 * Writes every checkpoint of thread `from`, with its pending writes, as the same checkpoint of thread
 * `to`, oldest first, each linked to its parent: `to` then has `from`'s state and history (LangGraph
 * Platform's thread copy). Returns how many checkpoints were copied. Each checkpoint is written whole,
 * so one written to `from` meanwhile is either copied or not, never in part.
 */
export async function copyCheckpoints(checkpointer: BaseCheckpointSaver, from: CheckpointThreadRef, to: CheckpointThreadRef): Promise<number> {
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of checkpointer.list(checkpointConfig(from))) tuples.push(tuple);
  const threadId = checkpointThreadId(to);
  for (const { config, checkpoint, metadata, parentConfig, pendingWrites } of tuples.reverse()) {
    const parentId = parentConfig?.configurable?.checkpoint_id as string | undefined;
    const target = { configurable: { thread_id: threadId, checkpoint_ns: config.configurable?.checkpoint_ns ?? "", ...(parentId ? { checkpoint_id: parentId } : {}) } };
    // Every channel as a new version: stores that keep values apart from checkpoints write them all.
    const written = await checkpointer.put(target, checkpoint, metadata ?? { source: "update", step: -1, parents: {} }, checkpoint.channel_versions);
    const byTask = new Map<string, PendingWrite[]>();
    for (const [taskId, channel, value] of pendingWrites ?? []) byTask.set(taskId, [...(byTask.get(taskId) ?? []), [channel, value]]);
    for (const [taskId, writes] of byTask) await checkpointer.putWrites(written, writes, taskId);
  }
  return tuples.length;
}
