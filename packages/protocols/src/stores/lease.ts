/** A live lease on a key. */
export interface LeaseRecord {
  key: string;
  holder: string;
  acquiredAt: Date;
  expiresAt: Date;
  /**
   * Fencing token: a strictly larger integer (as a decimal string) for every acquisition of a key
   * that was free or expired; kept when the same holder re-acquires.
   */
  token: string;
}

/**
 * The tenure of a lease a write is made under: its key and the token that tenure drew. A store
 * refuses a fenced write, in the write itself, once the key has a newer tenure (a larger token),
 * whatever the writer believes: the error's `code` is `LEASE_LOST` and nothing is written. A tenure
 * that ran out or was released with no successor still writes, since nothing newer exists to protect,
 * and whoever takes the key next waits for a fenced write in progress and reads what it wrote.
 */
export interface LeaseFence {
  key: string;
  token: string;
}

/** Options of a write that may be made under a lease's tenure. */
export interface FencedWriteOptions {
  /** Refuse the write once this tenure is no longer the key's latest (see {@link LeaseFence}). */
  fence?: LeaseFence;
}

/** Which live leases {@link LeaseStore.list} returns. */
export interface LeaseListOptions {
  /** Only keys starting with this text (e.g. `leader:`). */
  prefix?: string;
  /** At most this many, in key order (default and maximum: the store's own bound, 1000). */
  limit?: number;
}

/**
 * Self-expiring exclusive leases. Expiry is judged by the store's clock (the database clock for
 * PostgreSQL), never by the caller's.
 */
export interface LeaseStore {
  /** Takes a free or expired key, or re-takes the caller's own; `null` when another holder owns it. */
  acquire(key: string, holder: string, ttlMs: number): Promise<LeaseRecord | null>;
  /** {@link acquire} reduced to whether it succeeded. */
  tryAcquire(key: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Extends the lease only while `holder` still owns it. */
  renew(key: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Frees the key only when `holder` owns it. */
  release(key: string, holder: string): Promise<boolean>;
  /** The live lease, or `null` when the key is free, expired or unknown. */
  get(key: string): Promise<LeaseRecord | null>;
  /** Live leases in key order, for operators (`GET /api/cluster`); expired and released ones are left out. */
  list(options?: LeaseListOptions): Promise<LeaseRecord[]>;
}
