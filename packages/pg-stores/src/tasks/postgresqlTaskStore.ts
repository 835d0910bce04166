import {
  CREATION_PAGE_SHAPE,
  type PageKey,
  RecordExistsError,
  type TaskFields,
  type TaskGuard,
  anyTask,
  matchesSnapshot,
  planTaskWrite,
  requireTaskId,
  requireTaskStatuses,
  requireTenantId,
  statusIn,
  taskPageKey,
  validateCreateTask,
  validateListFilter,
  validateScanRequest,
  validateSnapshot,
  validateUpdateTask,
  validateWriteOptions,
} from "@axiom-lattice/core";
import type {
  CreateTaskRequest,
  Page,
  PageRequest,
  TaskItem,
  TaskListFilter,
  TaskMutationSnapshot,
  TaskOwnerType,
  TaskScanRequest,
  TaskStatus,
  TaskStore,
  TaskWriteOptions,
  UpdateTaskRequest,
} from "@axiom-lattice/protocols";
import type { ClientBase, QueryResult } from "pg";
import { LOCK_FENCE, assertHeld } from "../coordination/fenceSql";
import { readPage } from "../db/pageKeys";
import { PgStore } from "../db/pgStore";
import { inTransaction } from "../db/transaction";
import { DELETE_TASK, GET_TASK, INSERT_TASK, LIST_TASKS, LOCK_TASK, SCAN_TASKS, WRITE_TASK } from "./taskSql";

interface TaskRow {
  tenant_id: string;
  id: string;
  owner_type: TaskOwnerType;
  owner_id: string;
  title: string;
  description: string | null;
  status: TaskStatus;
  priority: number;
  due_date: Date | null;
  metadata: Record<string, unknown> | null;
  parent_id: string | null;
  source_id: string | null;
  context: Record<string, unknown> | null;
  require_review: boolean | null;
  dependencies: string[] | null;
  /** JSON text (see taskSql.ts). */
  result: string | null;
  failure_reason: string | null;
  workspace_id: string | null;
  project_id: string | null;
  fencing_token: string | null;
  created_at: Date;
  updated_at: Date;
}

// SQL NULL is an absent field.
const present = <K extends string, V>(key: K, value: V | null): { [P in K]?: V } => (value === null ? {} : ({ [key]: value } as { [P in K]?: V }));

const toTask = (row: TaskRow): TaskItem => ({
  id: row.id,
  tenantId: row.tenant_id,
  ownerType: row.owner_type,
  ownerId: row.owner_id,
  title: row.title,
  ...present("description", row.description),
  status: row.status,
  priority: row.priority,
  ...present("dueDate", row.due_date),
  ...present("metadata", row.metadata),
  ...present("parentId", row.parent_id),
  ...present("sourceId", row.source_id),
  ...present("context", row.context),
  ...present("requireReview", row.require_review),
  ...present("dependencies", row.dependencies),
  ...(row.result === null ? {} : { result: JSON.parse(row.result) as unknown }),
  ...present("failureReason", row.failure_reason),
  ...present("workspaceId", row.workspace_id),
  ...present("projectId", row.project_id),
  ...present("fencingToken", row.fencing_token),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

/** $3..$19 of INSERT_TASK and WRITE_TASK. */
const fieldParams = (task: TaskFields): unknown[] => [
  task.ownerType,
  task.ownerId,
  task.title,
  task.description ?? null,
  task.status,
  task.priority,
  task.dueDate ?? null,
  json(task.metadata),
  task.parentId ?? null,
  task.sourceId ?? null,
  json(task.context),
  task.requireReview ?? null,
  task.dependencies ?? null,
  json(task.result),
  task.failureReason ?? null,
  task.workspaceId ?? null,
  task.projectId ?? null,
];

/** Where a task store's statements run: the pool (each write its own transaction) or a caller's transaction. */
interface TaskSession {
  query(sql: string, params: unknown[]): Promise<QueryResult<TaskRow>>;
  transaction<T>(fn: (client: ClientBase) => Promise<T>): Promise<T>;
}

/**
 * {@link TaskStore} on `lattice_tasks`; every statement is scoped to one tenant. A write locks the
 * task's row, plans the change against that version (guard, fencing token) and stores it in the same
 * transaction, so concurrent writers take turns and each sees its predecessor's result.
 */
class TaskTable implements TaskStore {
  constructor(private readonly session: TaskSession) {}

  async createTask(tenantId: string, request: CreateTaskRequest): Promise<TaskItem> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateTask(request);
    const [row] = await this.rows(INSERT_TASK, [tenant, valid.id, ...fieldParams(valid)]);
    if (!row) throw new RecordExistsError("task", tenant, valid.id);
    return toTask(row);
  }

  async getTask(tenantId: string, taskId: string): Promise<TaskItem | null> {
    const [row] = await this.rows(GET_TASK, [requireTenantId(tenantId), requireTaskId(taskId)]);
    return row ? toTask(row) : null;
  }

  async listTasks(tenantId: string, page: PageRequest, filter?: TaskListFilter): Promise<Page<TaskItem>> {
    const tenant = requireTenantId(tenantId);
    const valid = validateListFilter(filter);
    const read = async (after: PageKey | null, fetch: number) =>
      (await this.rows(LIST_TASKS, [
      tenant,
      valid.status ?? null,
      valid.ownerType ?? null,
      valid.ownerId ?? null,
      valid.projectId ?? null,
      valid.workspaceId ?? null,
      valid.parentId ?? null,
        ...(after ?? [null, null]),
        fetch,
      ])).map(toTask);
    return readPage(page, CREATION_PAGE_SHAPE, read, taskPageKey, (task) => task);
  }

  updateTask(tenantId: string, taskId: string, updates: UpdateTaskRequest, options?: TaskWriteOptions): Promise<TaskItem | null> {
    return this.write(tenantId, taskId, () => anyTask, updates, options);
  }

  updateIfStatusIn(tenantId: string, taskId: string, statuses: TaskStatus[], updates: UpdateTaskRequest, options?: TaskWriteOptions): Promise<TaskItem | null> {
    return this.write(tenantId, taskId, () => statusIn(requireTaskStatuses(statuses)), updates, options);
  }

  updateIfSnapshot(tenantId: string, taskId: string, snapshot: TaskMutationSnapshot, updates: UpdateTaskRequest, options?: TaskWriteOptions): Promise<TaskItem | null> {
    return this.write(tenantId, taskId, () => matchesSnapshot(validateSnapshot(snapshot)), updates, options);
  }

  async deleteTask(tenantId: string, taskId: string, statuses?: TaskStatus[]): Promise<boolean> {
    const params = [requireTenantId(tenantId), requireTaskId(taskId), statuses ? requireTaskStatuses(statuses) : null];
    return (await this.session.query(DELETE_TASK, params)).rowCount === 1;
  }

  async scanTasks(request: TaskScanRequest): Promise<TaskItem[]> {
    const { statuses, limit, after } = validateScanRequest(request);
    const rows = await this.rows(SCAN_TASKS, [statuses, after?.tenantId ?? null, after?.id ?? null, limit]);
    return rows.map(toTask);
  }

  private async write(tenantId: string, taskId: string, guard: () => TaskGuard, updates: UpdateTaskRequest, options: TaskWriteOptions | undefined): Promise<TaskItem | null> {
    const key = [requireTenantId(tenantId), requireTaskId(taskId)];
    const expected = guard();
    const update = validateUpdateTask(updates);
    const { fencingToken, fence } = validateWriteOptions(options);
    return this.session.transaction(async (client) => {
      if (fence) assertHeld((await client.query(LOCK_FENCE, [fence.key, fence.token])).rowCount === 1, fence);
      const [current] = (await client.query<TaskRow>(LOCK_TASK, key)).rows;
      if (!current) return null;
      const planned = planTaskWrite(current.tenant_id, toTask(current), expected, update, fencingToken);
      if (!planned) return null;
      const [written] = (await client.query<TaskRow>(WRITE_TASK, [...key, ...fieldParams(planned), planned.fencingToken ?? null])).rows;
      return written ? toTask(written) : null;
    });
  }

  private async rows(sql: string, params: unknown[]): Promise<TaskRow[]> {
    return (await this.session.query(sql, params)).rows;
  }
}

/** {@link TaskTable} on the store's pool; {@link onClient} joins a caller's transaction. */
export class PostgreSQLTaskStore extends PgStore implements TaskStore {
  private readonly table = new TaskTable({
    query: async (sql, params) => {
      await this.initialize();
      return this.pool.query<TaskRow>(sql, params);
    },
    transaction: async (fn) => {
      await this.initialize();
      return inTransaction(this.pool, fn);
    },
  });

  /**
   * The store on `client`, whose transaction the caller owns: its writes commit or roll back with
   * it, and its row locks are held until then. The schema must be migrated already ({@link initialize}).
   */
  onClient(client: ClientBase): TaskStore {
    return new TaskTable({ query: (sql, params) => client.query<TaskRow>(sql, params), transaction: (fn) => fn(client) });
  }

  createTask(tenantId: string, request: CreateTaskRequest): Promise<TaskItem> {
    return this.table.createTask(tenantId, request);
  }

  getTask(tenantId: string, taskId: string): Promise<TaskItem | null> {
    return this.table.getTask(tenantId, taskId);
  }

  listTasks(tenantId: string, page: PageRequest, filter?: TaskListFilter): Promise<Page<TaskItem>> {
    return this.table.listTasks(tenantId, page, filter);
  }

  updateTask(tenantId: string, taskId: string, updates: UpdateTaskRequest, options?: TaskWriteOptions): Promise<TaskItem | null> {
    return this.table.updateTask(tenantId, taskId, updates, options);
  }

  updateIfStatusIn(tenantId: string, taskId: string, statuses: TaskStatus[], updates: UpdateTaskRequest, options?: TaskWriteOptions): Promise<TaskItem | null> {
    return this.table.updateIfStatusIn(tenantId, taskId, statuses, updates, options);
  }

  updateIfSnapshot(tenantId: string, taskId: string, snapshot: TaskMutationSnapshot, updates: UpdateTaskRequest, options?: TaskWriteOptions): Promise<TaskItem | null> {
    return this.table.updateIfSnapshot(tenantId, taskId, snapshot, updates, options);
  }

  deleteTask(tenantId: string, taskId: string, statuses?: TaskStatus[]): Promise<boolean> {
    return this.table.deleteTask(tenantId, taskId, statuses);
  }

  scanTasks(request: TaskScanRequest): Promise<TaskItem[]> {
    return this.table.scanTasks(request);
  }
}
