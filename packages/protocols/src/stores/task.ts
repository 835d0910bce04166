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
  createdAt: Date;
  updatedAt: Date;
}

export type CreateTaskRequest = Omit<TaskItem, "id" | "tenantId" | "status" | "createdAt" | "updatedAt"> & {
  id?: string;
  status?: TaskStatus;
};

export type UpdateTaskRequest = Partial<Omit<TaskItem, "id" | "tenantId" | "createdAt" | "updatedAt">>;

/** What a compare-and-set write expects to find. */
export interface TaskMutationSnapshot {
  status: TaskStatus;
  updatedAt: Date;
}

export interface TaskListFilter {
  status?: TaskStatus[];
  ownerType?: TaskOwnerType;
  ownerId?: string;
  projectId?: string;
  workspaceId?: string;
  parentId?: string;
  limit?: number;
  offset?: number;
}

export interface TaskStore {
  createTask(tenantId: string, request: CreateTaskRequest): Promise<TaskItem>;
  getTask(tenantId: string, taskId: string): Promise<TaskItem | null>;
  listTasks(tenantId: string, filter?: TaskListFilter): Promise<TaskItem[]>;
  updateTask(tenantId: string, taskId: string, updates: UpdateTaskRequest): Promise<TaskItem | null>;
  /** Applies `updates` only while the task's status is one of `statuses`; `null` otherwise. */
  updateIfStatusIn(tenantId: string, taskId: string, statuses: TaskStatus[], updates: UpdateTaskRequest): Promise<TaskItem | null>;
  /** Applies `updates` only while the task still matches `snapshot`; `null` otherwise. */
  updateIfSnapshot(tenantId: string, taskId: string, snapshot: TaskMutationSnapshot, updates: UpdateTaskRequest): Promise<TaskItem | null>;
  deleteTask(tenantId: string, taskId: string): Promise<boolean>;
}

export interface TaskWorkItem {
  id: string;
  tenantId: string;
  taskId: string;
  kind: string;
  status: TaskStatus;
  payload?: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface CreateWorkItemRequest {
  id?: string;
  taskId: string;
  kind: string;
  payload?: Record<string, unknown>;
}

export interface TaskWorkItemStore {
  createWorkItem(tenantId: string, request: CreateWorkItemRequest): Promise<TaskWorkItem>;
  /** Creates the work item unless one of the same task and kind exists; returns the stored one. */
  createWorkItemIfAbsent(tenantId: string, request: CreateWorkItemRequest): Promise<TaskWorkItem>;
  listWorkItems(tenantId: string, taskId: string): Promise<TaskWorkItem[]>;
  updateWorkItemStatus(tenantId: string, workItemId: string, status: TaskStatus): Promise<TaskWorkItem | null>;
}
