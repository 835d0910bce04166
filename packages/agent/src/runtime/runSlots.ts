/**
 * How many threads this replica runs at once, shared fairly between tenants. A thread waits for a
 * slot before it takes its run lease, so while this replica is saturated its queued threads stay
 * free for peers (their sweep and wake-ups find them), and runs cannot starve the HTTP requests
 * sharing the event loop.
 *
 * Waiters queue per tenant, first come, first served within a tenant (a thread with more to run gives
 * its slot up between runs while others wait, and queues again: threads take turns). A freed slot goes to the
 * tenant with waiters, under its own cap, that holds the fewest slots; ties go to the tenant served
 * least recently. So a tenant with a backlog of thousands of runs delays another tenant's run by at
 * most one release, and never holds more than `tenantLimit` slots.
 */
export class RunSlots {
  private inUse = 0;
  /** Slots held, by tenant (absent: none). */
  private readonly held = new Map<string, number>();
  /** Waiters by tenant; a tenant moves to the end when served, so the order is least recently served first. */
  private readonly waiting = new Map<string, Array<() => void>>();
  private waiters = 0;

  /** `tenantLimit`: most slots one tenant holds at once (default: all of them). */
  constructor(
    readonly limit: number,
    readonly tenantLimit: number = limit,
  ) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`The run concurrency limit must be an integer ≥ 1, got ${limit}`);
    if (!Number.isSafeInteger(tenantLimit) || tenantLimit < 1 || tenantLimit > limit) {
      throw new RangeError(`The per-tenant run concurrency limit must be an integer from 1 to ${limit}, got ${tenantLimit}`);
    }
  }

  /** Resolves with a release function once the tenant is given a slot. */
  async acquire(tenantId: string): Promise<() => void> {
    if (this.hasFree(tenantId)) this.grant(tenantId);
    // A release grants the slot before resolving the waiter, so the counts are already right here.
    else await new Promise<void>((resolve) => this.enqueue(tenantId, resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse -= 1;
      const left = this.heldBy(tenantId) - 1;
      if (left === 0) this.held.delete(tenantId);
      else this.held.set(tenantId, left);
      this.dispatch();
    };
  }

  /** Whether `acquire` would give the tenant a slot at once. */
  hasFree(tenantId: string): boolean {
    return this.inUse < this.limit && this.heldBy(tenantId) < this.tenantLimit && !this.waiting.has(tenantId);
  }

  /**
   * Someone waits for the slot a holder of `tenantId` would free: a waiter of its own tenant, or of
   * another under its cap. A holder that could go on with more work should give its slot up instead
   * (and queue again, behind them), so threads take turns and a busy one cannot keep its slot.
   */
  othersWaiting(tenantId: string): boolean {
    for (const tenant of this.waiting.keys()) if (tenant === tenantId || this.heldBy(tenant) < this.tenantLimit) return true;
    return false;
  }

  get running(): number {
    return this.inUse;
  }

  get queued(): number {
    return this.waiters;
  }

  /** Slots held and waiters, by tenant (tenants with neither are left out). */
  byTenant(): Map<string, { running: number; waiting: number }> {
    const tenants = new Map<string, { running: number; waiting: number }>();
    for (const [tenantId, running] of this.held) tenants.set(tenantId, { running, waiting: 0 });
    for (const [tenantId, queue] of this.waiting) tenants.set(tenantId, { running: this.heldBy(tenantId), waiting: queue.length });
    return tenants;
  }

  private heldBy(tenantId: string): number {
    return this.held.get(tenantId) ?? 0;
  }

  private grant(tenantId: string): void {
    this.inUse += 1;
    this.held.set(tenantId, this.heldBy(tenantId) + 1);
  }

  private enqueue(tenantId: string, resolve: () => void): void {
    const queue = this.waiting.get(tenantId);
    if (queue) queue.push(resolve);
    else this.waiting.set(tenantId, [resolve]);
    this.waiters += 1;
  }

  /** Hands free slots to waiters while some tenant with waiters is under its cap. */
  private dispatch(): void {
    while (this.inUse < this.limit) {
      const tenantId = this.nextTenant();
      if (tenantId === undefined) return;
      const queue = this.waiting.get(tenantId)!;
      const resolve = queue.shift()!;
      this.waiters -= 1;
      this.waiting.delete(tenantId);
      if (queue.length > 0) this.waiting.set(tenantId, queue);
      this.grant(tenantId);
      resolve();
    }
  }

  /** The eligible tenant holding the fewest slots; the least recently served among equals. */
  private nextTenant(): string | undefined {
    let next: string | undefined;
    let fewest = this.tenantLimit;
    for (const tenantId of this.waiting.keys()) {
      const held = this.heldBy(tenantId);
      if (held < fewest) {
        next = tenantId;
        fewest = held;
      }
    }
    return next;
  }
}
