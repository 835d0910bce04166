import type { RunEventLog, RunEventRef } from "@axiom-lattice/protocols";
import { KeyedWaiters } from "./keyedWaiters";

const runKey = ({ tenantId, assistantId, threadId, messageId }: RunEventRef) => JSON.stringify([tenantId, assistantId, threadId, messageId]);

/**
 * Wakes the followers of runs when the run event log tells of an append to theirs. One subscription
 * per replica, opened with the first wait; a notification without a run (the log may have missed
 * some) wakes every follower.
 */
export class RunEventWaits {
  private readonly waiters = new KeyedWaiters();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly log: RunEventLog) {}

  /** Resolves at the next append to the run, or after `timeoutMs` (the safety net for a lost notification). */
  nextAppend(run: RunEventRef, timeoutMs: number): Promise<void> {
    this.unsubscribe ??= this.log.subscribe((appended) => (appended ? this.waiters.wake(runKey(appended)) : this.waiters.wakeAll()));
    return this.waiters.wait(runKey(run), timeoutMs);
  }

  /** Drops the subscription and wakes every follower. */
  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.waiters.wakeAll();
  }
}
