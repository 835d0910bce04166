import type { Page, PageRequest } from "../page";

export const ScheduledTaskStatus = {
  PENDING: "pending",
  RUNNING: "running",
  PAUSED: "paused",
  COMPLETED: "completed",
  CANCELLED: "cancelled",
  FAILED: "failed",
} as const;
export type ScheduledTaskStatus = (typeof ScheduledTaskStatus)[keyof typeof ScheduledTaskStatus];

export const ScheduleExecutionType = {
  ONCE: "once",
  CRON: "cron",
} as const;
export type ScheduleExecutionType = (typeof ScheduleExecutionType)[keyof typeof ScheduleExecutionType];

/** What to do with fires missed while no replica was running. */
export type ScheduleCatchUpPolicy = "once" | "skip";

/** A stored schedule. Times are epoch milliseconds. */
export interface ScheduledTaskDefinition {
  taskId: string;
  tenantId: string;
  taskType: string;
  payload: Record<string, unknown>;
  executionType: ScheduleExecutionType;
  /** When a one-shot schedule fires (moved forward by a retry). */
  executeAt?: number;
  /** When the next fire of a cron schedule is due (moved forward by a retry). */
  nextRunAt?: number;
  cronExpression?: string;
  /** IANA time zone the cron expression is read in. */
  timezone?: string;
  catchUp: ScheduleCatchUpPolicy;
  status: ScheduledTaskStatus;
  /** Fires that ran their handler to completion. */
  runCount: number;
  /** A cron schedule completes after this many runs. */
  maxRuns?: number;
  /** Failed attempts of the current fire so far. */
  retryCount: number;
  maxRetries: number;
  lastRunAt?: number;
  lastError?: string;
  assistantId?: string;
  threadId?: string;
  /** Set by the store (the database clock for PostgreSQL). */
  createdAt: number;
  /** Set by the store on every write; stale-run recovery judges by it. */
  updatedAt: number;
}

/** A schedule as handed to {@link ScheduleStore.save}: the store stamps the times. */
export type NewScheduledTask = Omit<ScheduledTaskDefinition, "createdAt" | "updatedAt">;

/** Fields {@link ScheduleStore.update} may change. */
export type ScheduledTaskUpdate = Partial<Omit<ScheduledTaskDefinition, "taskId" | "tenantId" | "createdAt" | "updatedAt">>;

/** The outcome of a claimed fire, written by {@link ScheduleStore.settleScheduledRun}. */
export interface ScheduledRunSettlement {
  /** Where the task goes next: `pending` (another fire or a retry), `completed` or `failed`. */
  status: typeof ScheduledTaskStatus.PENDING | typeof ScheduledTaskStatus.COMPLETED | typeof ScheduledTaskStatus.FAILED;
  runCount: number;
  retryCount: number;
  /** The next fire of a cron schedule. */
  nextRunAt?: number;
  /** The retry time of a one-shot schedule. */
  executeAt?: number;
  lastRunAt?: number;
  lastError?: string;
}

/**
 * Where schedules live. A fire is identified by (taskId, scheduled time): the scheduled time is
 * `nextRunAt` for cron schedules and `executeAt` for one-shot ones.
 */
export interface ScheduleStore {
  /** Stores a new schedule; a taken `taskId` is refused with `ALREADY_EXISTS`. */
  save(task: NewScheduledTask): Promise<ScheduledTaskDefinition>;
  get(taskId: string): Promise<ScheduledTaskDefinition | null>;
  /** Changes the given fields of an existing task (nothing when it does not exist). */
  update(taskId: string, updates: ScheduledTaskUpdate): Promise<void>;
  delete(taskId: string): Promise<void>;
  /** Pending and running schedules, of one tenant when given. */
  getActiveTasks(tenantId?: string): Promise<ScheduledTaskDefinition[]>;
  getTasksByType(taskType: string, tenantId?: string): Promise<ScheduledTaskDefinition[]>;
  getTasksByStatus(status: ScheduledTaskStatus, tenantId?: string): Promise<ScheduledTaskDefinition[]>;
  getTasksByAssistantId(assistantId: string, tenantId?: string): Promise<ScheduledTaskDefinition[]>;
  getTasksByThreadId(threadId: string, tenantId?: string): Promise<ScheduledTaskDefinition[]>;
  /**
   * A page of every task (of one tenant when given), oldest first: by creation time, then task id.
   * A cursor another list returned is refused with `INVALID_CURSOR`.
   */
  listTasks(page: PageRequest, tenantId?: string): Promise<Page<ScheduledTaskDefinition>>;
  countTasks(tenantId?: string): Promise<number>;
  /** Deletes finished (completed, cancelled, failed) tasks older than the threshold; returns how many. */
  deleteOldTasks(olderThanMs: number): Promise<number>;
  /**
   * Moves the task `pending → running` in one conditional write; exactly one caller wins. With
   * `expectedRunAt`, only the fire scheduled at that time can be claimed.
   */
  claimScheduledRun(taskId: string, expectedRunAt?: number): Promise<boolean>;
  /** Refreshes `updatedAt` of a `running` task (a live run's heartbeat); false when it is not running. */
  heartbeatScheduledRun(taskId: string): Promise<boolean>;
  /**
   * Records the outcome of the fire claimed at `firedAt`, only while that fire is still the task's
   * and the task is `running` — or was paused or cancelled during the run, which status is then
   * kept. Returns whether it was written.
   */
  settleScheduledRun(taskId: string, firedAt: number, settlement: ScheduledRunSettlement): Promise<boolean>;
  /**
   * Returns `running` tasks not updated for `olderThanMs` (their runner stopped heartbeating) to
   * `pending`, as the same fire; resolves to the ids of the tasks requeued, so peers can be told.
   */
  requeueStaleRunning(olderThanMs: number): Promise<string[]>;
}
