import {
  RecordExistsError,
  requireTenantId,
  requireText,
  validateCreateThread,
  validateExpiryClaim,
  validateMetadata,
  validateThreadListFilter,
  validateThreadTtl,
} from "@axiom-lattice/core";
import type { CreateThreadRequest, Page, PageRequest, Thread, ThreadListFilter, ThreadStore, ThreadUpdateOptions } from "@axiom-lattice/protocols";
import { readCreationPage } from "../db/pageKeys";
import { PgStore } from "../db/pgStore";
import { CLAIM_EXPIRED_THREADS, DELETE_THREAD, GET_THREAD, INSERT_THREAD, LIST_THREADS, TOUCH_THREAD, UPDATE_THREAD } from "./threadSql";

/** A row of `lattice_threads` as its columns (`COLUMNS`) read. */
export interface ThreadRow {
  tenant_id: string;
  id: string;
  assistant_id: string;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  ttl_minutes: number | null;
  config: Record<string, unknown> | null;
}

export const toThread = (row: ThreadRow): Thread => ({
  id: row.id,
  tenantId: row.tenant_id,
  assistantId: row.assistant_id,
  metadata: row.metadata,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  ...(row.ttl_minutes === null ? {} : { ttlMinutes: row.ttl_minutes }),
  ...(row.config === null ? {} : { config: row.config }),
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

  async listThreads(tenantId: string, page: PageRequest, filter?: ThreadListFilter): Promise<Page<Thread>> {
    const tenant = requireTenantId(tenantId);
    const { assistantId } = validateThreadListFilter(filter);
    const read = (after: (string | null)[], fetch: number) => this.rows<ThreadRow & { created_us: string }>(LIST_THREADS, [tenant, assistantId ?? null, ...after, fetch]);
    return readCreationPage(page, read, (row) => row.id, toThread);
  }

  async updateThread(tenantId: string, threadId: string, metadata: Record<string, unknown>, options: ThreadUpdateOptions = {}): Promise<Thread | null> {
    const config = options.config === undefined ? null : validateMetadata(options.config, "Thread config");
    const params = [requireTenantId(tenantId), requireText(threadId, "Thread id"), validateMetadata(metadata), validateThreadTtl(options.ttlMinutes), config];
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

  private async rows<R extends ThreadRow = ThreadRow>(sql: string, params: unknown[]): Promise<R[]> {
    await this.initialize();
    return (await this.pool.query<R>(sql, params)).rows;
  }
}
