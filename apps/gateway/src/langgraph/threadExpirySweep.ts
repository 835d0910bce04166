import { type AgentInstanceManager, ThreadBusyError } from "@axiom-lattice/agent";
import { type MessageQueueStore, type Logger, type MaintenanceTask } from "@axiom-lattice/core";
import type { Thread, ThreadStore } from "@axiom-lattice/protocols";
import { threadScope } from "../shared/lookups";

/** Threads one claim takes; a pass claims until none is left. */
const CLAIM_BATCH = 100;

export interface ThreadExpirySweepDeps {
  threads: Pick<ThreadStore, "claimExpiredThreads">;
  queue: Pick<MessageQueueStore, "getQueueSize">;
  agents: Pick<AgentInstanceManager, "deleteThread">;
  logger: Logger;
  /** Period between passes; a thread found in use is claimed again one period later. */
  intervalMs: number;
}

/**
 * Deleting threads whose TTL ran out (LangGraph's thread `ttl`), as a task of the maintenance loop:
 * one replica at a time sweeps, and should two overlap (a leadership handover) each thread is still
 * claimed by one of them only. A thread is deleted as `DELETE /threads/{id}` deletes it (runs,
 * checkpoints, event logs, record); one with a run queued or in progress is left until its runs ended.
 */
export function threadExpirySweep({ threads, queue, agents, logger, intervalMs }: ThreadExpirySweepDeps): MaintenanceTask {
  const log = logger.child({ phase: "thread_expiry" });

  /** Whether the thread was deleted; a thread in use is kept, for a later pass. */
  const deleteUnlessInUse = async (thread: Thread): Promise<boolean> => {
    const scope = threadScope(thread);
    // A run queued on it is a use the client is waiting on, which deleting the thread would drop.
    if ((await queue.getQueueSize(scope)) > 0) return false;
    try {
      await agents.deleteThread(scope);
      return true;
    } catch (error) {
      if (error instanceof ThreadBusyError) return false;
      throw error;
    }
  };

  return {
    name: "thread-expiry",
    intervalMs,
    async run(tenure) {
      let deleted = 0;
      let kept = 0;
      for (;;) {
        const expired = await threads.claimExpiredThreads(CLAIM_BATCH, intervalMs);
        for (const thread of expired) {
          try {
            if (await deleteUnlessInUse(thread)) deleted += 1;
            else kept += 1;
          } catch (error) {
            // Its claim lapses: a later pass tries again.
            log.warn({ err: error, tenantId: thread.tenantId, threadId: thread.id }, "expired thread not deleted; retried next pass");
          }
        }
        if (expired.length < CLAIM_BATCH || tenure.signal.aborted) break;
      }
      if (deleted > 0 || kept > 0) log.info({ deleted, kept }, "expired threads deleted (those in use are kept until their runs ended)");
      return deleted;
    },
  };
}
