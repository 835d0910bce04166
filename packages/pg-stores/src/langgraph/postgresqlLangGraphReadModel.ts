import { requireTenantId, validateRunsLimit, validateThreadFilter } from "@axiom-lattice/core";
import type { LangGraphReadModel, PendingMessage, Thread, ThreadFilter, ThreadQueueRef } from "@axiom-lattice/protocols";
import { PgStore } from "../db/pgStore";
import { type MessageRow, queueParams, toMessage } from "../queue/postgresqlMessageQueueStore";
import { type ThreadRow, toThread } from "../threads/postgresqlThreadStore";
import { LATEST_RUNS, searchThreads } from "./langGraphReadModelSql";

/** {@link LangGraphReadModel} on `lattice_threads` and `lattice_thread_message_queue`, the thread and queue stores' tables. */
export class PostgreSQLLangGraphReadModel extends PgStore implements LangGraphReadModel {
  async searchThreads(tenantId: string, filter?: ThreadFilter): Promise<Thread[]> {
    const tenant = requireTenantId(tenantId);
    const { assistantId, metadata, ids, sortBy, sortOrder, limit, offset } = validateThreadFilter(filter);
    const params = [tenant, assistantId ?? null, metadata === undefined ? null : JSON.stringify(metadata), ids ?? null, limit, offset];
    return (await this.rows<ThreadRow>(searchThreads(sortBy, sortOrder), params)).map(toThread);
  }

  async latestRuns(thread: ThreadQueueRef, options?: { limit?: number }): Promise<PendingMessage[]> {
    const params = [...queueParams(thread), validateRunsLimit(options)];
    return (await this.rows<MessageRow>(LATEST_RUNS, params)).map(toMessage);
  }

  private async rows<R extends object>(sql: string, params: unknown[]): Promise<R[]> {
    await this.initialize();
    return (await this.pool.query<R>(sql, params)).rows;
  }
}
