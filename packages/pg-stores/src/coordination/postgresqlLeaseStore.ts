import { validateLeaseArguments, validateLeaseListOptions } from "@axiom-lattice/core";
import type { LeaseListOptions, LeaseRecord, LeaseStore } from "@axiom-lattice/protocols";
import { PgStore } from "../db/pgStore";
import { ACQUIRE_LEASE, GET_LEASE, LIST_LEASES, RELEASE_LEASE, RENEW_LEASE } from "./leaseSql";

interface LeaseRow {
  key: string;
  holder: string;
  token: string;
  acquired_at: Date;
  expires_at: Date;
}

const toRecord = (row: LeaseRow): LeaseRecord => ({
  key: row.key,
  holder: row.holder,
  token: row.token,
  acquiredAt: row.acquired_at,
  expiresAt: row.expires_at,
});

/**
 * {@link LeaseStore} on `lattice_leases`: cross-replica exclusion with self-expiring rows, one atomic
 * statement per operation, fencing tokens from a sequence.
 */
export class PostgreSQLLeaseStore extends PgStore implements LeaseStore {
  async acquire(key: string, holder: string, ttlMs: number): Promise<LeaseRecord | null> {
    validateLeaseArguments(key, holder, ttlMs);
    await this.initialize();
    const { rows } = await this.pool.query<LeaseRow>({ ...ACQUIRE_LEASE, values: [key, holder, ttlMs] });
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async tryAcquire(key: string, holder: string, ttlMs: number): Promise<boolean> {
    return (await this.acquire(key, holder, ttlMs)) !== null;
  }

  async renew(key: string, holder: string, ttlMs: number): Promise<boolean> {
    validateLeaseArguments(key, holder, ttlMs);
    await this.initialize();
    const { rowCount } = await this.pool.query({ ...RENEW_LEASE, values: [key, holder, ttlMs] });
    return rowCount === 1;
  }

  async release(key: string, holder: string): Promise<boolean> {
    validateLeaseArguments(key, holder);
    await this.initialize();
    const { rowCount } = await this.pool.query({ ...RELEASE_LEASE, values: [key, holder] });
    return rowCount === 1;
  }

  async get(key: string): Promise<LeaseRecord | null> {
    validateLeaseArguments(key);
    await this.initialize();
    const { rows } = await this.pool.query<LeaseRow>({ ...GET_LEASE, values: [key] });
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async list(options?: LeaseListOptions): Promise<LeaseRecord[]> {
    const { prefix, limit } = validateLeaseListOptions(options);
    await this.initialize();
    const { rows } = await this.pool.query<LeaseRow>({ ...LIST_LEASES, values: [prefix, limit] });
    return rows.map(toRecord);
  }
}
