import {
  ScheduledTaskStatus,
  type NewScheduledTask,
  type Page,
  type PageRequest,
  type ScheduleStore,
  type ScheduledRunSettlement,
  type ScheduledTaskDefinition,
  type ScheduledTaskUpdate,
} from "@axiom-lattice/protocols";
import { CREATION_PAGE_SHAPE } from "../stores/creationOrder";
import { type PageKey, pageOfSorted } from "../stores/keysetPages";
import { requireText } from "../stores/storeArguments";
import {
  validateAgeThreshold,
  validateClaim,
  validateNewScheduledTask,
  validateScheduledTaskUpdate,
  validateSettlement,
  validateStatus,
  validateTenantFilter,
} from "./scheduleStoreArguments";
import { DuplicateScheduleError } from "./scheduleErrors";
import { scheduledRunAt } from "./scheduledRunAt";

const FINISHED: ScheduledTaskStatus[] = [ScheduledTaskStatus.COMPLETED, ScheduledTaskStatus.CANCELLED, ScheduledTaskStatus.FAILED];
// A settlement is still welcome when the task was paused or cancelled while it ran; that status stays.
const SETTLEABLE: ScheduledTaskStatus[] = [ScheduledTaskStatus.RUNNING, ScheduledTaskStatus.PAUSED, ScheduledTaskStatus.CANCELLED];

// Optional fields are present only when set, as the PostgreSQL store maps NULL columns.
const defined = <T extends object>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;

// The payload goes through JSON, as it does into a jsonb column.
const copy = (task: ScheduledTaskDefinition): ScheduledTaskDefinition => ({
  ...(defined(task) as ScheduledTaskDefinition),
  payload: JSON.parse(JSON.stringify(task.payload)) as Record<string, unknown>,
});

// Lists are ordered by creation time, then task id; a page starts after its last item's key.
const taskPageKey = (task: ScheduledTaskDefinition): PageKey => [task.createdAt, task.taskId];

/** {@link ScheduleStore} within one process: the same contract as the PostgreSQL store. */
export class InMemoryScheduleStore implements ScheduleStore {
  private readonly tasks = new Map<string, ScheduledTaskDefinition>();

  constructor(private readonly now: () => number = Date.now) {}

  async save(task: NewScheduledTask): Promise<ScheduledTaskDefinition> {
    validateNewScheduledTask(task);
    if (this.tasks.has(task.taskId)) throw new DuplicateScheduleError(task.taskId, task.tenantId);
    const now = this.now();
    const stored = copy({ ...task, createdAt: now, updatedAt: now });
    this.tasks.set(task.taskId, stored);
    return copy(stored);
  }

  async get(taskId: string): Promise<ScheduledTaskDefinition | null> {
    requireText(taskId, "taskId");
    const task = this.tasks.get(taskId);
    return task ? copy(task) : null;
  }

  async update(taskId: string, updates: ScheduledTaskUpdate): Promise<void> {
    validateScheduledTaskUpdate(taskId, updates);
    const task = this.tasks.get(taskId);
    if (task) this.write(task, updates);
  }

  async delete(taskId: string): Promise<void> {
    requireText(taskId, "taskId");
    this.tasks.delete(taskId);
  }

  async getActiveTasks(tenantId?: string): Promise<ScheduledTaskDefinition[]> {
    validateTenantFilter(tenantId);
    return this.select(tenantId, (task) => task.status === ScheduledTaskStatus.PENDING || task.status === ScheduledTaskStatus.RUNNING);
  }

  async getTasksByType(taskType: string, tenantId?: string): Promise<ScheduledTaskDefinition[]> {
    requireText(taskType, "taskType");
    validateTenantFilter(tenantId);
    return this.select(tenantId, (task) => task.taskType === taskType);
  }

  async getTasksByStatus(status: ScheduledTaskStatus, tenantId?: string): Promise<ScheduledTaskDefinition[]> {
    validateStatus(status);
    validateTenantFilter(tenantId);
    return this.select(tenantId, (task) => task.status === status);
  }

  async getTasksByAssistantId(assistantId: string, tenantId?: string): Promise<ScheduledTaskDefinition[]> {
    requireText(assistantId, "assistantId");
    validateTenantFilter(tenantId);
    return this.select(tenantId, (task) => task.assistantId === assistantId);
  }

  async getTasksByThreadId(threadId: string, tenantId?: string): Promise<ScheduledTaskDefinition[]> {
    requireText(threadId, "threadId");
    validateTenantFilter(tenantId);
    return this.select(tenantId, (task) => task.threadId === threadId);
  }

  async listTasks(page: PageRequest, tenantId?: string): Promise<Page<ScheduledTaskDefinition>> {
    validateTenantFilter(tenantId);
    return pageOfSorted(this.select(tenantId, () => true), page, CREATION_PAGE_SHAPE, taskPageKey);
  }

  async countTasks(tenantId?: string): Promise<number> {
    validateTenantFilter(tenantId);
    return this.select(tenantId, () => true).length;
  }

  async deleteOldTasks(olderThanMs: number): Promise<number> {
    validateAgeThreshold(olderThanMs);
    const cutoff = this.now() - olderThanMs;
    let deleted = 0;
    for (const task of this.tasks.values()) {
      if (FINISHED.includes(task.status) && task.updatedAt < cutoff) {
        this.tasks.delete(task.taskId);
        deleted++;
      }
    }
    return deleted;
  }

  async claimScheduledRun(taskId: string, expectedRunAt?: number): Promise<boolean> {
    validateClaim(taskId, expectedRunAt);
    const task = this.tasks.get(taskId);
    if (!task || task.status !== ScheduledTaskStatus.PENDING) return false;
    if (expectedRunAt !== undefined && scheduledRunAt(task) !== expectedRunAt) return false;
    this.write(task, { status: ScheduledTaskStatus.RUNNING });
    return true;
  }

  async heartbeatScheduledRun(taskId: string): Promise<boolean> {
    requireText(taskId, "taskId");
    const task = this.tasks.get(taskId);
    if (!task || task.status !== ScheduledTaskStatus.RUNNING) return false;
    this.write(task, {});
    return true;
  }

  async settleScheduledRun(taskId: string, firedAt: number, settlement: ScheduledRunSettlement): Promise<boolean> {
    validateSettlement(taskId, firedAt, settlement);
    const task = this.tasks.get(taskId);
    if (!task || !SETTLEABLE.includes(task.status) || scheduledRunAt(task) !== firedAt) return false;
    const status = task.status === ScheduledTaskStatus.RUNNING ? settlement.status : task.status;
    this.write(task, { ...settlement, status });
    return true;
  }

  async requeueStaleRunning(olderThanMs: number): Promise<string[]> {
    validateAgeThreshold(olderThanMs);
    const cutoff = this.now() - olderThanMs;
    const requeued: string[] = [];
    for (const task of this.tasks.values()) {
      if (task.status === ScheduledTaskStatus.RUNNING && task.updatedAt < cutoff) {
        this.write(task, { status: ScheduledTaskStatus.PENDING });
        requeued.push(task.taskId);
      }
    }
    return requeued;
  }

  private write(task: ScheduledTaskDefinition, updates: ScheduledTaskUpdate): void {
    this.tasks.set(task.taskId, copy({ ...task, ...defined(updates), updatedAt: this.now() }));
  }

  private select(tenantId: string | undefined, keep: (task: ScheduledTaskDefinition) => boolean): ScheduledTaskDefinition[] {
    return [...this.tasks.values()]
      .filter((task) => (tenantId === undefined || task.tenantId === tenantId) && keep(task))
      .sort((a, b) => a.createdAt - b.createdAt || (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0))
      .map(copy);
  }
}
