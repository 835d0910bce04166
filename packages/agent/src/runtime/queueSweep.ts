import { type MessageQueueStore, type Logger, type ThreadRunScope, getThreadRunOwner, ownedThreadRunKeys, threadRunLeaseKey } from "@axiom-lattice/core";
import type { LeaseStore } from "@axiom-lattice/protocols";

export interface QueueSweepOptions {
  /** Pause between passes; a pending message whose thread has no owner starts within two, given a free run slot. */
  intervalMs: number;
  /**
   * Work that has waited this long is woken whether or not this replica has a run slot free (it then
   * waits for one here): an orphan in a cluster whose slots are all taken still runs. Default: the
   * thread-run lease's TTL, the bound within which a dead replica's running thread is taken over.
   */
  orphanAfterMs?: number;
}

export interface FreeSlots {
  total: number;
  of(tenantId: string): number;
}

export interface QueueSweepHandle {
  /** Stops the sweep; settles after a pass in progress. */
  stop(): Promise<void>;
}

export interface QueueSweepDependencies {
  queue: MessageQueueStore;
  leases: LeaseStore;
  /** Thread-run lease TTL: the default of `orphanAfterMs`. */
  threadRunTtlMs: number;
  wake(scope: ThreadRunScope): void;
  /** This replica processes the thread already (it waits for a run slot here, or runs): waking it costs nothing. */
  isProcessing(scope: ThreadRunScope): boolean;
  /** The run slots this replica would give at once, now: in all, and to one tenant's threads. */
  freeSlots(): FreeSlots;
  logger: Logger;
}

/**
 * The guarantee behind wake-ups: every pass (the first at once) starts processing for threads with
 * pending messages (or expired claims) and no run owner — messages whose enqueuing replica died,
 * whose wake-up was lost, or whose runner crashed. Threads with an owner are left to it: its
 * processor re-checks the queue before it stops.
 *
 * A thread with no owner is also every thread waiting for a run slot on a live replica (its sender
 * woke it; it takes the lease only with a slot), which the sweep cannot tell from an orphan. Waking
 * those everywhere cost each peer a late tenure that found the message run (or a refused lease) per
 * queued message in a backlog (issue 42). So a pass wakes, longest-waiting first, only as many
 * threads as this replica has run slots free for, which then run at once, of those queued before the
 * last pass (a newer one is its sender's to start); and, past that, threads whose work waited
 * `orphanAfterMs`, so an orphan still runs when every slot of the cluster is taken. Expired claims
 * are a dead runner's: always woken.
 */
export function startQueueSweep(deps: QueueSweepDependencies, { intervalMs, orphanAfterMs = deps.threadRunTtlMs }: QueueSweepOptions): QueueSweepHandle {
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
      // Slots handed out by this pass, in all and by tenant: its wake-ups take their slots only after it.
      const free = deps.freeSlots();
      const woken = new Map<string, number>();
      let wokenTotal = 0;
      for (const thread of threads) {
        if (stopped) return;
        // Agents always enqueue with both; anything else is not a thread this runtime can run.
        if (thread.tenantId === undefined || thread.assistantId === undefined) continue;
        const scope = { tenantId: thread.tenantId, assistantId: thread.assistantId, threadId: thread.threadId };
        const hasOwner = owned ? owned.has(threadRunLeaseKey(scope)) : (await getThreadRunOwner(scope, { store: deps.leases })) !== null;
        if (hasOwner) continue;
        if (deps.isProcessing(scope) || thread.expiredCount > 0 || thread.waitedMs >= orphanAfterMs) {
          deps.wake(scope);
          continue;
        }
        // Queued within the last pass: its sender is starting it (or telling its peers it cannot).
        if (thread.waitedMs < intervalMs) continue;
        const taken = woken.get(scope.tenantId) ?? 0;
        if (wokenTotal >= free.total || taken >= free.of(scope.tenantId)) continue;
        woken.set(scope.tenantId, taken + 1);
        wokenTotal += 1;
        deps.wake(scope);
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
