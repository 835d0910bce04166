import type { LeaseFence, LeaseListOptions, LeaseRecord, LeaseStore } from "@axiom-lattice/protocols";
import { validateLeaseArguments, validateLeaseListOptions } from "./leaseArguments";
import { type FenceCheck, FencedOutError } from "./leaseFence";

/** A released lease: it stays, holding its key's latest token, until the next tenure. */
const RELEASED = new Date(-8.64e15);

/**
 * {@link LeaseStore} within one process: the same contract as the PostgreSQL store. It also judges
 * the fences of the in-memory stores' writes ({@link FenceCheck}).
 */
export class InMemoryLeaseStore implements LeaseStore, FenceCheck {
  private readonly leases = new Map<string, LeaseRecord>();
  /** Per key, the fenced writes in progress ({@link hold}): no new tenure begins meanwhile. */
  private readonly held = new Map<string, number>();
  private lastToken = 0n;

  constructor(private readonly now: () => number = Date.now) {}

  async acquire(key: string, holder: string, ttlMs: number): Promise<LeaseRecord | null> {
    validateLeaseArguments(key, holder, ttlMs);
    const now = this.now();
    const current = this.live(key, now);
    if (current && current.holder !== holder) return null;
    // A new tenure waits for the fenced writes of the one before, as PostgreSQL's takeover waits for its lock.
    if (!current && this.held.has(key)) return null;
    const record: LeaseRecord = current
      ? { ...current, expiresAt: new Date(now + ttlMs) }
      : { key, holder, acquiredAt: new Date(now), expiresAt: new Date(now + ttlMs), token: String(++this.lastToken) };
    this.leases.set(key, record);
    return { ...record };
  }

  async tryAcquire(key: string, holder: string, ttlMs: number): Promise<boolean> {
    return (await this.acquire(key, holder, ttlMs)) !== null;
  }

  async renew(key: string, holder: string, ttlMs: number): Promise<boolean> {
    validateLeaseArguments(key, holder, ttlMs);
    const now = this.now();
    const current = this.live(key, now);
    if (!current || current.holder !== holder) return false;
    this.leases.set(key, { ...current, expiresAt: new Date(now + ttlMs) });
    return true;
  }

  /** Ends the tenure but keeps its token, as the PostgreSQL store does: its fence holds until a new tenure. */
  async release(key: string, holder: string): Promise<boolean> {
    validateLeaseArguments(key, holder);
    const current = this.leases.get(key);
    if (!current || current.holder !== holder || current.expiresAt === RELEASED) return false;
    this.leases.set(key, { ...current, expiresAt: RELEASED });
    return true;
  }

  isCurrent(fence: LeaseFence): boolean {
    return this.leases.get(fence.key)?.token === fence.token;
  }

  hold(fence: LeaseFence): () => void {
    if (!this.isCurrent(fence)) throw new FencedOutError(fence);
    const { key } = fence;
    this.held.set(key, (this.held.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const count = this.held.get(key)! - 1;
      if (count === 0) this.held.delete(key);
      else this.held.set(key, count);
    };
  }

  async get(key: string): Promise<LeaseRecord | null> {
    validateLeaseArguments(key);
    const current = this.live(key, this.now());
    return current ? { ...current } : null;
  }

  async list(options?: LeaseListOptions): Promise<LeaseRecord[]> {
    const { prefix, limit } = validateLeaseListOptions(options);
    const now = this.now();
    return [...this.leases.keys()]
      .filter((key) => key.startsWith(prefix) && this.live(key, now))
      .sort()
      .slice(0, limit)
      .map((key) => ({ ...this.leases.get(key)! }));
  }

  private live(key: string, now: number): LeaseRecord | undefined {
    const record = this.leases.get(key);
    return record && record.expiresAt.getTime() > now ? record : undefined;
  }
}
