import { requireTenantId, requireText } from "@axiom-lattice/core";
import type { RunTarget, RunTargetReadModel } from "@axiom-lattice/protocols";
import { PgStore } from "../db/pgStore";
import { type ThreadRow, toThread } from "../threads/postgresqlThreadStore";
import { FIND_RUN_TARGET } from "./runTargetSql";

type RunTargetRow = { assistant_found: boolean } & { [column in keyof ThreadRow]: ThreadRow[column] | null };

/** {@link RunTargetReadModel} on `lattice_assistants` and `lattice_threads`, the assistant and thread stores' tables. */
export class PostgreSQLRunTargetReadModel extends PgStore implements RunTargetReadModel {
  async findRunTarget(tenantId: string, assistantId: string, threadId: string): Promise<RunTarget> {
    const params = [requireTenantId(tenantId), requireText(assistantId, "Assistant id"), requireText(threadId, "Thread id")];
    await this.initialize();
    const [row] = (await this.pool.query<RunTargetRow>(FIND_RUN_TARGET, params)).rows;
    return { assistantFound: row.assistant_found, thread: row.id === null ? null : toThread(row as ThreadRow) };
  }
}
