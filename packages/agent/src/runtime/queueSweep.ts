import { type MessageQueueStore, type Logger, type ThreadRunScope, getThreadRunOwner, ownedThreadRunKeys, threadRunLeaseKey } from "@axiom-lattice/core";
import type { LeaseStore } from "@axiom-lattice/protocols";

export interface QueueSweepOptions {
  /** Pause between passes; a pending message whose thread has no owner starts within one interval. */
  intervalMs: number;
}

export interface QueueSweepHandle {
  /** Stops the sweep; settles after a pass in progress. */
  stop(): Promise<void>;
}

export interface QueueSweepDependencies {
  queue: MessageQueueStore;
  leases: LeaseStore;
  wake(scope: ThreadRunScope): void;
  logger: Logger;
}

/**
 * The guarantee behind wake-ups: every pass (the first at once) starts processing for each thread
 * with pending messages (or expired claims) and no run owner — messages whose enqueuing replica
 * died, whose wake-up was lost, or whose runner crashed. Threads with an owner are left to it: its
 * processor re-checks the queue before it stops.
 */
export function startQueueSweep(deps: QueueSweepDependencies, { intervalMs }: QueueSweepOptions): QueueSweepHandle {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();

  const sweep = async () => {
    try {
      const threads = await deps.queue.getThreadsWithPendingMessages();
      // One read of every owned thread, not one per thread: with a backlog that was a statement per
      // pending thread per pass, on every replica. A lease taken since costs a refused acquire; one
      // given up since is followed by its holder's own look at the queue.
      const owned = threads.length > 0 ? await ownedThreadRunKeys({ store: deps.leases }) : null;
      for (const thread of threads) {
        if (stopped) return;
        // Agents always enqueue with both; anything else is not a thread this runtime can run.
        if (thread.tenantId === undefined || thread.assistantId === undefined) continue;
        const scope = { tenantId: thread.tenantId, assistantId: thread.assistantId, threadId: thread.threadId };
        const hasOwner = owned ? owned.has(threadRunLeaseKey(scope)) : (await getThreadRunOwner(scope, { store: deps.leases })) !== null;
        if (!hasOwner) deps.wake(scope);
      }
    } catch (error) {
      deps.logger.warn({ err: error }, "queue sweep pass failed; retrying next interval");
    }
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      pass = sweep().then(schedule);
    }, intervalMs);
    timer.unref();
  };

  pass = sweep().then(schedule);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}
