import { type MessageQueueStore, type Logger, type ThreadRunScope, getThreadRunOwner } from "@axiom-lattice/core";
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
      for (const thread of await deps.queue.getThreadsWithPendingMessages()) {
        if (stopped) return;
        // Agents always enqueue with both; anything else is not a thread this runtime can run.
        if (thread.tenantId === undefined || thread.assistantId === undefined) continue;
        const scope = { tenantId: thread.tenantId, assistantId: thread.assistantId, threadId: thread.threadId };
        if ((await getThreadRunOwner(scope, { store: deps.leases })) === null) deps.wake(scope);
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
