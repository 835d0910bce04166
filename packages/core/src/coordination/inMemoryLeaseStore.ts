import type { LeaseListOptions, LeaseRecord, LeaseStore } from "@axiom-lattice/protocols";
import { validateLeaseArguments, validateLeaseListOptions } from "./leaseArguments";

/** {@link LeaseStore} within one process: the same contract as the PostgreSQL store. */
export class InMemoryLeaseStore implements LeaseStore {
  private readonly leases = new Map<string, LeaseRecord>();
  private lastToken = 0n;

  constructor(private readonly now: () => number = Date.now) {}

  async acquire(key: string, holder: string, ttlMs: number): Promise<LeaseRecord | null> {
    validateLeaseArguments(key, holder, ttlMs);
    const now = this.now();
    const current = this.live(key, now);
    if (current && current.holder !== holder) return null;
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

  async release(key: string, holder: string): Promise<boolean> {
    validateLeaseArguments(key, holder);
    const current = this.leases.get(key);
    if (!current || current.holder !== holder) return false;
    this.leases.delete(key);
    return true;
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
