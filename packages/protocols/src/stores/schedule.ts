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
  /** When a one-shot schedule fires. */
  executeAt?: number;
  /** When the next fire of a cron schedule is due. */
  nextRunAt?: number;
  cronExpression?: string;
  timezone?: string;
  catchUp: ScheduleCatchUpPolicy;
  status: ScheduledTaskStatus;
  runCount: number;
  maxRuns?: number;
  retryCount: number;
  maxRetries: number;
  lastRunAt?: number;
  lastError?: string;
  assistantId?: string;
  threadId?: string;
  createdAt: number;
  updatedAt: number;
}

export interface ScheduleStorage {
  save(task: ScheduledTaskDefinition): Promise<void>;
  get(taskId: string): Promise<ScheduledTaskDefinition | null>;
  update(taskId: string, updates: Partial<ScheduledTaskDefinition>): Promise<void>;
  delete(taskId: string): Promise<void>;
  /** Pending and running schedules, of one tenant when given. */
  getActiveTasks(tenantId?: string): Promise<ScheduledTaskDefinition[]>;
  getTasksByType(taskType: string, tenantId?: string): Promise<ScheduledTaskDefinition[]>;
  getTasksByStatus(status: ScheduledTaskStatus, tenantId?: string): Promise<ScheduledTaskDefinition[]>;
  getTasksByAssistantId(assistantId: string, tenantId?: string): Promise<ScheduledTaskDefinition[]>;
  getTasksByThreadId(threadId: string, tenantId?: string): Promise<ScheduledTaskDefinition[]>;
  getAllTasks(tenantId?: string): Promise<ScheduledTaskDefinition[]>;
  countTasks(tenantId?: string): Promise<number>;
  /** Deletes finished (completed, cancelled, failed) tasks older than the threshold; returns how many. */
  deleteOldTasks(olderThanMs: number): Promise<number>;
  /**
   * Moves the task `pending → running` in one conditional write; exactly one caller wins. With
   * `expectedRunAt`, only the fire scheduled at that time can be claimed.
   */
  claimScheduledRun(taskId: string, expectedRunAt?: number): Promise<boolean>;
  /** Returns `running` tasks not updated for `olderThanMs` to `pending`; returns how many. */
  requeueStaleRunning(olderThanMs: number): Promise<number>;
}
