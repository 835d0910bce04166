import type { LangGraphRunnableConfig } from "@langchain/langgraph";

export interface CheckpointThreadRef {
  tenantId: string;
  threadId: string;
}

/**
 * The checkpointer's `thread_id` for a thread: tenant-namespaced, so two tenants that pick the same
 * thread id never share state. Parts are URI-encoded so `:` in an id cannot forge another tenant's key.
 */
export function checkpointThreadId({ tenantId, threadId }: CheckpointThreadRef): string {
  return `${encodeURIComponent(tenantId)}:${encodeURIComponent(threadId)}`;
}

/**
 * The graph config that addresses a thread's checkpoints: its latest, or the one named; in the root
 * graph, or (`checkpointNs`, as `node:task id` names it) in one of its subgraphs.
 */
export function checkpointConfig(ref: CheckpointThreadRef, checkpointId?: string, checkpointNs?: string): LangGraphRunnableConfig {
  return {
    configurable: {
      thread_id: checkpointThreadId(ref),
      ...(checkpointId === undefined ? {} : { checkpoint_id: checkpointId }),
      ...(checkpointNs ? { checkpoint_ns: checkpointNs } : {}),
    },
  };
}
