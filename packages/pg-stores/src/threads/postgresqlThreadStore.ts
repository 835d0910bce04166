import { RecordExistsError, requireTenantId, requireText, validateCreateThread, validateMetadata, validateThreadFilter } from "@axiom-lattice/core";
import type { CreateThreadRequest, Thread, ThreadFilter, ThreadStore } from "@axiom-lattice/protocols";
import { PgStore } from "../db/pgStore";
import { DELETE_THREAD, GET_THREAD, INSERT_THREAD, UPDATE_THREAD_METADATA, listThreads } from "./threadSql";

interface ThreadRow {
  tenant_id: string;
  id: string;
  assistant_id: string;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const toThread = (row: ThreadRow): Thread => ({
  id: row.id,
  tenantId: row.tenant_id,
  assistantId: row.assistant_id,
  metadata: row.metadata,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** {@link ThreadStore} on `lattice_threads`; every statement is scoped to one tenant. */
export class PostgreSQLThreadStore extends PgStore implements ThreadStore {
  async createThread(tenantId: string, request: CreateThreadRequest): Promise<Thread> {
    const tenant = requireTenantId(tenantId);
    const { id, assistantId, metadata } = validateCreateThread(request);
    const [row] = await this.rows(INSERT_THREAD, [tenant, id, assistantId, metadata]);
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

  async updateThread(tenantId: string, threadId: string, metadata: Record<string, unknown>): Promise<Thread | null> {
    const params = [requireTenantId(tenantId), requireText(threadId, "Thread id"), validateMetadata(metadata)];
    const [row] = await this.rows(UPDATE_THREAD_METADATA, params);
    return row ? toThread(row) : null;
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
