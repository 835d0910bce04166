import { type ThreadRunScope, threadRunLeaseKey } from "@axiom-lattice/core";
import { type RuntimeContext, notifyPeers } from "./runtimeContext";
import { type DrainResult, ThreadProcessor } from "./threadProcessor";

/**
 * The thread processors of one manager. A processor exists only while it drains its thread's queue
 * and is dropped when it stops, so a replica that has seen many threads holds state for few.
 */
export class ThreadProcessors {
  private readonly active = new Map<string, ThreadProcessor>();

  /** `executeRuns` off: no processor ever starts here; waking a thread wakes the peers instead. */
  constructor(
    private readonly context: RuntimeContext,
    private readonly executeRuns = true,
  ) {}

  /** The thread's processor while it runs, else `undefined`. */
  get(scope: ThreadRunScope): ThreadProcessor | undefined {
    return this.active.get(threadRunLeaseKey(scope));
  }

  /**
   * Wakes the thread's processor, starting one when none runs. Where no runs are executed, the
   * peers are woken instead and the thread is reported left to them.
   */
  async wake(scope: ThreadRunScope): Promise<DrainResult> {
    if (!this.executeRuns) {
      await notifyPeers(this.context, scope);
      return { leaseContended: false, leftToPeers: true };
    }
    const key = threadRunLeaseKey(scope);
    let processor = this.active.get(key);
    if (!processor) {
      const created = new ThreadProcessor(scope, this.context, () => {
        if (this.active.get(key) === created) this.active.delete(key);
      });
      this.active.set(key, created);
      processor = created;
    }
    return processor.wake();
  }

  /** Stops every processor, handing running messages back to the queue. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.active.values()].map((processor) => processor.close()));
  }

  /** How many threads this replica is processing now (for metrics and tests). */
  get size(): number {
    return this.active.size;
  }
}
