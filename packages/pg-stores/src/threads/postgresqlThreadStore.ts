import {
  RecordExistsError,
  requireTenantId,
  requireText,
  validateCreateThread,
  validateExpiryClaim,
  validateMetadata,
  validateThreadFilter,
  validateThreadTtl,
} from "@axiom-lattice/core";
import type { CreateThreadRequest, Thread, ThreadFilter, ThreadStore } from "@axiom-lattice/protocols";
import { PgStore } from "../db/pgStore";
import { CLAIM_EXPIRED_THREADS, DELETE_THREAD, GET_THREAD, INSERT_THREAD, TOUCH_THREAD, UPDATE_THREAD, listThreads } from "./threadSql";

interface ThreadRow {
  tenant_id: string;
  id: string;
  assistant_id: string;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  ttl_minutes: number | null;
}

const toThread = (row: ThreadRow): Thread => ({
  id: row.id,
  tenantId: row.tenant_id,
  assistantId: row.assistant_id,
  metadata: row.metadata,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  ...(row.ttl_minutes === null ? {} : { ttlMinutes: row.ttl_minutes }),
});

/** {@link ThreadStore} on `lattice_threads`; every statement is scoped to one tenant. */
export class PostgreSQLThreadStore extends PgStore implements ThreadStore {
  async createThread(tenantId: string, request: CreateThreadRequest): Promise<Thread> {
    const tenant = requireTenantId(tenantId);
    const { id, assistantId, metadata, ttlMinutes } = validateCreateThread(request);
    const [row] = await this.rows(INSERT_THREAD, [tenant, id, assistantId, metadata, ttlMinutes]);
    if (!row) throw new RecordExistsError("thread", tenant, id);
    return toThread(row);
  }

  async getThread(tenantId: string, threadId: string): Promise<Thread | null> {
    const [row] = await this.rows(GET_THREAD, [requireTenantId(tenantId), requireText(threadId, "Thread id")]);
    return row ? toThread(row) : null;
  }

  async listThreads(tenantId: string, filter?: ThreadFilter): Promise<Thread[]> {
    const tenant = requireTenantId(tenantId);
    const { assistantId, metadata, ids, sortBy, sortOrder, limit, offset } = validateThreadFilter(filter);
    const params = [tenant, assistantId ?? null, metadata === undefined ? null : JSON.stringify(metadata), ids ?? null, limit, offset];
    return (await this.rows(listThreads(sortBy, sortOrder), params)).map(toThread);
  }

  async updateThread(tenantId: string, threadId: string, metadata: Record<string, unknown>, options: { ttlMinutes?: number } = {}): Promise<Thread | null> {
    const params = [requireTenantId(tenantId), requireText(threadId, "Thread id"), validateMetadata(metadata), validateThreadTtl(options.ttlMinutes)];
    const [row] = await this.rows(UPDATE_THREAD, params);
    return row ? toThread(row) : null;
  }

  async touchThread(tenantId: string, threadId: string): Promise<boolean> {
    const params = [requireTenantId(tenantId), requireText(threadId, "Thread id")];
    await this.initialize();
    return (await this.pool.query(TOUCH_THREAD, params)).rowCount === 1;
  }

  async claimExpiredThreads(limit: number, claimMs: number): Promise<Thread[]> {
    const claim = validateExpiryClaim(limit, claimMs);
    return (await this.rows(CLAIM_EXPIRED_THREADS, [claim.limit, claim.claimMs])).map(toThread);
  }

  async deleteThread(tenantId: string, threadId: string): Promise<boolean> {
    const params = [requireTenantId(tenantId), requireText(threadId, "Thread id")];
    await this.initialize();
    return (await this.pool.query(DELETE_THREAD, params)).rowCount === 1;
  }

  private async rows(sql: string, params: unknown[]): Promise<ThreadRow[]> {
    await this.initialize();
    return (await this.pool.query<ThreadRow>(sql, params)).rows;
  }
}
