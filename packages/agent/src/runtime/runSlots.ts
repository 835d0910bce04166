/**
 * How many threads this replica runs at once. A thread waits for a slot before it takes its run
 * lease, so while this replica is saturated its queued threads stay free for peers (their sweep and
 * wake-ups find them), and runs cannot starve the HTTP requests sharing the event loop.
 */
export class RunSlots {
  private inUse = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`The run concurrency limit must be an integer ≥ 1, got ${limit}`);
  }

  /** Resolves with a release function once a slot is free (first come, first served). */
  async acquire(): Promise<() => void> {
    if (this.inUse < this.limit) this.inUse += 1;
    // The releasing holder hands its slot straight to the next waiter, so the count stays.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.inUse -= 1;
    };
  }

  get running(): number {
    return this.inUse;
  }

  get queued(): number {
    return this.waiting.length;
  }
}
