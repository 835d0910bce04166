import type { FencedWriteOptions } from "./lease";
import type { Page, PageRequest } from "../page";

export const TaskStatus = {
  PENDING: "pending",
  IN_PROGRESS: "in_progress",
  REVIEW: "review",
  FAILED: "failed",
  INTERRUPTED: "interrupted",
  COMPLETED: "completed",
  CANCELLED: "cancelled",
} as const;
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

export type TaskOwnerType = "user" | "agent";

export interface TaskItem {
  id: string;
  tenantId: string;
  ownerType: TaskOwnerType;
  ownerId: string;
  title: string;
  description?: string;
  status: TaskStatus;
  priority: number;
  dueDate?: Date;
  metadata?: Record<string, unknown>;
  parentId?: string;
  sourceId?: string;
  context?: Record<string, unknown>;
  requireReview?: boolean;
  dependencies?: string[];
  result?: unknown;
  failureReason?: string;
  workspaceId?: string;
  projectId?: string;
  /**
   * The highest lease fencing token a write to this task carried (a decimal string): a later write
   * under an older token is refused. Absent until a fenced write.
   */
  fencingToken?: string;
  createdAt: Date;
  /** Advances strictly (by at least a millisecond) on every write, so it identifies one version. */
  updatedAt: Date;
}

export type CreateTaskRequest = Omit<TaskItem, "id" | "tenantId" | "status" | "fencingToken" | "createdAt" | "updatedAt"> & {
  id?: string;
  status?: TaskStatus;
};

/** Fields to change; an absent (or `undefined`) field keeps its value. */
export type UpdateTaskRequest = Partial<Omit<TaskItem, "id" | "tenantId" | "fencingToken" | "createdAt" | "updatedAt">>;

/**
 * How a write is made. `fencingToken`: the token of the lease the writer holds (as `Lease.token`).
 * A write carrying a token older than the task's {@link TaskItem.fencingToken} is refused with an
 * error whose `code` is `LEASE_LOST` (never a `null`, which means a compare-and-set miss); an equal
 * or newer token is accepted and remembered. A write without a token (a user's edit) is not fenced
 * and leaves the remembered token as it is. `fence`: the lease tenure the write is made under (a
 * task run's end, under its thread's run lease), refused once that lease has a newer tenure.
 */
export interface TaskWriteOptions extends FencedWriteOptions {
  fencingToken?: string;
}

/** What a compare-and-set write expects to find. */
export interface TaskMutationSnapshot {
  status: TaskStatus;
  updatedAt: Date;
}

/** Filters are ANDed. */
export interface TaskListFilter {
  status?: TaskStatus[];
  ownerType?: TaskOwnerType;
  ownerId?: string;
  projectId?: string;
  workspaceId?: string;
  parentId?: string;
}

/** Where a cross-tenant scan resumes: after this task, in scan order. */
export interface TaskScanCursor {
  tenantId: string;
  id: string;
}

/**
 * A page of a scan across every tenant (maintenance: orphan recovery). Tasks come in a stable order,
 * by tenant then id (compared by code unit), so passing the last task of a page as `after` gives the
 * next page, whatever was written in between.
 */
export interface TaskScanRequest {
  statuses: TaskStatus[];
  /** Most tasks of the page (at most the store's list maximum). */
  limit: number;
  after?: TaskScanCursor;
}

export interface TaskStore {
  createTask(tenantId: string, request: CreateTaskRequest): Promise<TaskItem>;
  getTask(tenantId: string, taskId: string): Promise<TaskItem | null>;
  /**
   * One page of the tenant's tasks matching `filter`, oldest first (`createdAt`, then `id` by code
   * unit): creation never changes, so a task written or deleted between pages moves no other.
   */
  listTasks(tenantId: string, page: PageRequest, filter?: TaskListFilter): Promise<Page<TaskItem>>;
  /** `null` when the tenant has no such task. */
  updateTask(tenantId: string, taskId: string, updates: UpdateTaskRequest, options?: TaskWriteOptions): Promise<TaskItem | null>;
  /** Applies `updates` only while the task's status is one of `statuses`; `null` (nothing written) otherwise. */
  updateIfStatusIn(tenantId: string, taskId: string, statuses: TaskStatus[], updates: UpdateTaskRequest, options?: TaskWriteOptions): Promise<TaskItem | null>;
  /** Applies `updates` only while the task still has `snapshot`'s status and `updatedAt`; `null` (nothing written) otherwise. */
  updateIfSnapshot(tenantId: string, taskId: string, snapshot: TaskMutationSnapshot, updates: UpdateTaskRequest, options?: TaskWriteOptions): Promise<TaskItem | null>;
  /**
   * Deletes the task; with `statuses`, only while its status is one of them (judged with the delete,
   * so a task that started meanwhile is kept). False when nothing was deleted.
   */
  deleteTask(tenantId: string, taskId: string, statuses?: TaskStatus[]): Promise<boolean>;
  /** One page of the tasks of every tenant whose status is one of `statuses`; fewer than `limit` on the last page. */
  scanTasks(request: TaskScanRequest): Promise<TaskItem[]>;
}
