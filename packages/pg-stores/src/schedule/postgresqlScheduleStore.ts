import {
  DuplicateScheduleError,
  requireText,
  validateAgeThreshold,
  validateClaim,
  validateNewScheduledTask,
  validateScheduledTaskUpdate,
  validateSettlement,
  validateStatus,
  validateTenantFilter,
} from "@axiom-lattice/core";
import type {
  NewScheduledTask,
  Page,
  PageRequest,
  ScheduleCatchUpPolicy,
  ScheduleExecutionType,
  ScheduleStore,
  ScheduledRunSettlement,
  ScheduledTaskDefinition,
  ScheduledTaskStatus,
  ScheduledTaskUpdate,
} from "@axiom-lattice/protocols";
import { readCreationPage } from "../db/pageKeys";
import { PgStore } from "../db/pgStore";
import {
  CLAIM_RUN,
  COUNT_TASKS,
  DELETE_OLD_TASKS,
  DELETE_TASK,
  HEARTBEAT_RUN,
  INSERT_TASK,
  LIST_ACTIVE,
  LIST_BY_ASSISTANT,
  LIST_BY_STATUS,
  LIST_BY_THREAD,
  LIST_BY_TYPE,
  LIST_PAGE,
  REQUEUE_STALE_RUNNING,
  SELECT_TASK,
  SETTLE_RUN,
  updateTask,
} from "./scheduleSql";

interface TaskRow {
  task_id: string;
  tenant_id: string;
  task_type: string;
  payload: Record<string, unknown>;
  execution_type: ScheduleExecutionType;
  execute_at: Date | null;
  next_run_at: Date | null;
  cron_expression: string | null;
  timezone: string | null;
  catch_up: ScheduleCatchUpPolicy;
  status: ScheduledTaskStatus;
  run_count: number;
  max_runs: number | null;
  retry_count: number;
  max_retries: number;
  last_run_at: Date | null;
  last_error: string | null;
  assistant_id: string | null;
  thread_id: string | null;
  created_at: Date;
  updated_at: Date;
}

// Pages follow the lists' order: creation time (epoch microseconds), then task id.

const optional = <T>(value: T | null): T | undefined => value ?? undefined;
const millis = (value: Date | null) => value?.getTime();
const toDate = (ms: number | undefined) => (ms === undefined ? null : new Date(ms));

function toTask(row: TaskRow): ScheduledTaskDefinition {
  const task: ScheduledTaskDefinition = {
    taskId: row.task_id,
    tenantId: row.tenant_id,
    taskType: row.task_type,
    payload: row.payload,
    executionType: row.execution_type,
    executeAt: millis(row.execute_at),
    nextRunAt: millis(row.next_run_at),
    cronExpression: optional(row.cron_expression),
    timezone: optional(row.timezone),
    catchUp: row.catch_up,
    status: row.status,
    runCount: row.run_count,
    maxRuns: optional(row.max_runs),
    retryCount: row.retry_count,
    maxRetries: row.max_retries,
    lastRunAt: millis(row.last_run_at),
    lastError: optional(row.last_error),
    assistantId: optional(row.assistant_id),
    threadId: optional(row.thread_id),
    createdAt: row.created_at.getTime(),
    updatedAt: row.updated_at.getTime(),
  };
  // Unset optional fields are absent, as from the in-memory store.
  return Object.fromEntries(Object.entries(task).filter(([, value]) => value !== undefined)) as ScheduledTaskDefinition;
}

// The column of every field `update` may write, with how its value becomes a parameter.
const asDate = (ms: unknown) => toDate(ms as number);
const UPDATE_COLUMNS: Record<keyof ScheduledTaskUpdate, { column: string; param?: (value: unknown) => unknown; cast?: string }> = {
  taskType: { column: "task_type" },
  payload: { column: "payload", param: (value) => JSON.stringify(value), cast: "jsonb" },
  executionType: { column: "execution_type" },
  executeAt: { column: "execute_at", param: asDate },
  nextRunAt: { column: "next_run_at", param: asDate },
  cronExpression: { column: "cron_expression" },
  timezone: { column: "timezone" },
  catchUp: { column: "catch_up" },
  status: { column: "status" },
  runCount: { column: "run_count" },
  maxRuns: { column: "max_runs" },
  retryCount: { column: "retry_count" },
  maxRetries: { column: "max_retries" },
  lastRunAt: { column: "last_run_at", param: asDate },
  lastError: { column: "last_error" },
  assistantId: { column: "assistant_id" },
  threadId: { column: "thread_id" },
};

/**
 * {@link ScheduleStore} on `lattice_scheduled_tasks`. Claims, heartbeats, settlements and stale-run
 * recovery are each one conditional statement judged by the database clock, so replicas agree on
 * who runs a fire.
 */
export class PostgreSQLScheduleStore extends PgStore implements ScheduleStore {
  async save(task: NewScheduledTask): Promise<ScheduledTaskDefinition> {
    validateNewScheduledTask(task);
    await this.initialize();
    const { rows } = await this.pool.query<TaskRow>(INSERT_TASK, [
      task.taskId,
      task.tenantId,
      task.taskType,
      JSON.stringify(task.payload),
      task.executionType,
      toDate(task.executeAt),
      toDate(task.nextRunAt),
      task.cronExpression ?? null,
      task.timezone ?? null,
      task.catchUp,
      task.status,
      task.runCount,
      task.maxRuns ?? null,
      task.retryCount,
      task.maxRetries,
      toDate(task.lastRunAt),
      task.lastError ?? null,
      task.assistantId ?? null,
      task.threadId ?? null,
    ]);
    if (!rows[0]) throw new DuplicateScheduleError(task.taskId, task.tenantId);
    return toTask(rows[0]);
  }

  async get(taskId: string): Promise<ScheduledTaskDefinition | null> {
    requireText(taskId, "taskId");
    await this.initialize();
    const { rows } = await this.pool.query<TaskRow>(SELECT_TASK, [taskId]);
    return rows[0] ? toTask(rows[0]) : null;
  }

  async update(taskId: string, updates: ScheduledTaskUpdate): Promise<void> {
    validateScheduledTaskUpdate(taskId, updates);
    const assignments: string[] = [];
    const params: unknown[] = [taskId];
    for (const [field, value] of Object.entries(updates)) {
      if (value === undefined) continue;
      const { column, param, cast } = UPDATE_COLUMNS[field as keyof ScheduledTaskUpdate];
      params.push(param ? param(value) : value);
      assignments.push(`${column} = $${params.length}${cast ? `::${cast}` : ""}`);
    }
    if (assignments.length === 0) return;
    await this.initialize();
    await this.pool.query(updateTask(assignments), params);
  }

  async delete(taskId: string): Promise<void> {
    requireText(taskId, "taskId");
    await this.initialize();
    await this.pool.query(DELETE_TASK, [taskId]);
  }

  async getActiveTasks(tenantId?: string): Promise<ScheduledTaskDefinition[]> {
    return this.list(LIST_ACTIVE, tenantId);
  }

  async getTasksByType(taskType: string, tenantId?: string): Promise<ScheduledTaskDefinition[]> {
    return this.list(LIST_BY_TYPE, tenantId, requireText(taskType, "taskType"));
  }

  async getTasksByStatus(status: ScheduledTaskStatus, tenantId?: string): Promise<ScheduledTaskDefinition[]> {
    validateStatus(status);
    return this.list(LIST_BY_STATUS, tenantId, status);
  }

  async getTasksByAssistantId(assistantId: string, tenantId?: string): Promise<ScheduledTaskDefinition[]> {
    return this.list(LIST_BY_ASSISTANT, tenantId, requireText(assistantId, "assistantId"));
  }

  async getTasksByThreadId(threadId: string, tenantId?: string): Promise<ScheduledTaskDefinition[]> {
    return this.list(LIST_BY_THREAD, tenantId, requireText(threadId, "threadId"));
  }

  async listTasks(page: PageRequest, tenantId?: string): Promise<Page<ScheduledTaskDefinition>> {
    validateTenantFilter(tenantId);
    const read = async (after: (string | null)[], fetch: number) => {
      await this.initialize();
      return (await this.pool.query<TaskRow & { created_us: string }>(LIST_PAGE, [tenantId ?? null, ...after, fetch])).rows;
    };
    return readCreationPage(page, read, (row) => row.task_id, toTask);
  }

  async countTasks(tenantId?: string): Promise<number> {
    validateTenantFilter(tenantId);
    await this.initialize();
    const { rows } = await this.pool.query<{ count: number }>(COUNT_TASKS, [tenantId ?? null]);
    return rows[0].count;
  }

  async deleteOldTasks(olderThanMs: number): Promise<number> {
    validateAgeThreshold(olderThanMs);
    await this.initialize();
    const { rowCount } = await this.pool.query(DELETE_OLD_TASKS, [olderThanMs]);
    return rowCount ?? 0;
  }

  async claimScheduledRun(taskId: string, expectedRunAt?: number): Promise<boolean> {
    validateClaim(taskId, expectedRunAt);
    await this.initialize();
    const { rowCount } = await this.pool.query(CLAIM_RUN, [taskId, toDate(expectedRunAt)]);
    return rowCount === 1;
  }

  async heartbeatScheduledRun(taskId: string): Promise<boolean> {
    requireText(taskId, "taskId");
    await this.initialize();
    const { rowCount } = await this.pool.query(HEARTBEAT_RUN, [taskId]);
    return rowCount === 1;
  }

  async settleScheduledRun(taskId: string, firedAt: number, settlement: ScheduledRunSettlement): Promise<boolean> {
    validateSettlement(taskId, firedAt, settlement);
    await this.initialize();
    const { rowCount } = await this.pool.query(SETTLE_RUN, [
      taskId,
      new Date(firedAt),
      settlement.status,
      settlement.runCount,
      settlement.retryCount,
      toDate(settlement.nextRunAt),
      toDate(settlement.executeAt),
      toDate(settlement.lastRunAt),
      settlement.lastError ?? null,
    ]);
    return rowCount === 1;
  }

  async requeueStaleRunning(olderThanMs: number): Promise<string[]> {
    validateAgeThreshold(olderThanMs);
    await this.initialize();
    const { rows } = await this.pool.query<{ task_id: string }>(REQUEUE_STALE_RUNNING, [olderThanMs]);
    return rows.map((row) => row.task_id);
  }

  private async list(sql: string, tenantId: string | undefined, ...filter: string[]): Promise<ScheduledTaskDefinition[]> {
    validateTenantFilter(tenantId);
    await this.initialize();
    const { rows } = await this.pool.query<TaskRow>(sql, [tenantId ?? null, ...filter]);
    return rows.map(toTask);
  }
}
