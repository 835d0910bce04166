import type {
  CreateTaskRequest,
  LeaseFence,
  Page,
  PageRequest,
  TaskItem,
  TaskListFilter,
  TaskMutationSnapshot,
  TaskScanRequest,
  TaskStatus,
  TaskStore,
  TaskWriteOptions,
  UpdateTaskRequest,
} from "@axiom-lattice/protocols";
import { type FenceCheck, assertFenceHolds } from "../coordination/leaseFence";
import { comparePageKeys, pageOfSorted } from "../stores/keysetPages";
import { RecordExistsError } from "../stores/recordExistsError";
import { requireTenantId } from "../stores/storeArguments";
import { requireTaskId, requireTaskStatuses, validateCreateTask, validateListFilter, validateScanRequest, validateSnapshot, validateUpdateTask, validateWriteOptions } from "./taskArguments";
import { CREATION_PAGE_SHAPE } from "../stores/creationOrder";
import { taskPageKey } from "./taskListing";
import { type TaskGuard, anyTask, matchesSnapshot, nextUpdatedAt, planTaskWrite, statusIn } from "./taskWrites";

const copy = (task: TaskItem): TaskItem => structuredClone(task);

// Ids compare by code unit, as PostgreSQL's "C" collation does.
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
// The order every TaskStore lists a tenant's tasks in.
const byCreation = (a: TaskItem, b: TaskItem) => comparePageKeys(taskPageKey(a), taskPageKey(b));
// The order every TaskStore scans all tenants' tasks in.
const byTenantThenId = (a: Pick<TaskItem, "tenantId" | "id">, b: Pick<TaskItem, "tenantId" | "id">) => byCodeUnit(a.tenantId, b.tenantId) || byCodeUnit(a.id, b.id);

/**
 * {@link TaskStore} within one process: the same contract as the PostgreSQL store. Writes take turns
 * with each other and with units of work ({@link transaction}), as row locks make them in PostgreSQL;
 * reads never wait.
 */
export class InMemoryTaskStore implements TaskStore {
  private readonly tenants = new Map<string, Map<string, TaskItem>>();
  private turn: Promise<unknown> = Promise.resolve();
  /** A staged copy's ({@link transaction}): the fences of its writes, judged again when it commits. */
  private stagedFences: LeaseFence[] | undefined;

  /** `fences` judges fenced writes (the in-memory lease store); without it, they are refused. */
  constructor(private readonly options: { fences?: FenceCheck } = {}) {}

  /**
   * Runs `work` on a staged copy of this store, while every other write waits. When `work` resolves,
   * its writes replace this store's tasks and `commit` runs, in one synchronous step, so no reader
   * sees one without the other; when it throws, nothing of it is kept. A fence of a staged write that
   * no longer holds by then refuses the whole unit, as PostgreSQL's lock on the fence makes it.
   */
  transaction<T>(work: (staged: TaskStore) => Promise<T>, commit: () => void): Promise<T> {
    return this.inTurn(async () => {
      const staged = new InMemoryTaskStore(this.options);
      staged.stagedFences = [];
      for (const [tenant, tasks] of this.tenants) staged.tenants.set(tenant, new Map(tasks));
      const result = await work(staged);
      for (const fence of staged.stagedFences) assertFenceHolds(this.options.fences, { fence });
      this.tenants.clear();
      for (const [tenant, tasks] of staged.tenants) this.tenants.set(tenant, tasks);
      commit();
      return result;
    });
  }

  createTask(tenantId: string, request: CreateTaskRequest): Promise<TaskItem> {
    return this.inTurn(async () => this.create(tenantId, request));
  }

  private create(tenantId: string, request: CreateTaskRequest): TaskItem {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateTask(request);
    const tasks = this.tenants.get(tenant) ?? new Map<string, TaskItem>();
    if (tasks.has(valid.id)) throw new RecordExistsError("task", tenant, valid.id);
    const now = new Date();
    const task: TaskItem = { ...valid, tenantId: tenant, createdAt: now, updatedAt: now };
    tasks.set(valid.id, task);
    this.tenants.set(tenant, tasks);
    return copy(task);
  }

  async getTask(tenantId: string, taskId: string): Promise<TaskItem | null> {
    const task = this.find(tenantId, taskId);
    return task ? copy(task) : null;
  }

  async listTasks(tenantId: string, page: PageRequest, filter?: TaskListFilter): Promise<Page<TaskItem>> {
    const tenant = requireTenantId(tenantId);
    const valid = validateListFilter(filter);
    const matches = (task: TaskItem) =>
      (valid.status === undefined || valid.status.includes(task.status)) &&
      (valid.ownerType === undefined || task.ownerType === valid.ownerType) &&
      (valid.ownerId === undefined || task.ownerId === valid.ownerId) &&
      (valid.projectId === undefined || task.projectId === valid.projectId) &&
      (valid.workspaceId === undefined || task.workspaceId === valid.workspaceId) &&
      (valid.parentId === undefined || task.parentId === valid.parentId);
    const tasks = [...(this.tenants.get(tenant)?.values() ?? [])].filter(matches).sort(byCreation);
    const listed = pageOfSorted(tasks, page, CREATION_PAGE_SHAPE, taskPageKey);
    return { ...listed, items: listed.items.map(copy) };
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

  deleteTask(tenantId: string, taskId: string, statuses?: TaskStatus[]): Promise<boolean> {
    return this.inTurn(async () => this.delete(tenantId, taskId, statuses));
  }

  private delete(tenantId: string, taskId: string, statuses?: TaskStatus[]): boolean {
    const tenant = this.tenants.get(requireTenantId(tenantId));
    const id = requireTaskId(taskId);
    const allowed = statuses && requireTaskStatuses(statuses);
    const task = tenant?.get(id);
    if (!task || (allowed && !allowed.includes(task.status))) return false;
    return tenant!.delete(id);
  }

  async scanTasks(request: TaskScanRequest): Promise<TaskItem[]> {
    const { statuses, limit, after } = validateScanRequest(request);
    const matches = (task: TaskItem) => statuses.includes(task.status) && (after === undefined || byTenantThenId(task, after) > 0);
    const tasks = [...this.tenants.values()].flatMap((tenant) => [...tenant.values()]).filter(matches).sort(byTenantThenId);
    return tasks.slice(0, limit).map(copy);
  }

  private write(tenantId: string, taskId: string, guard: () => TaskGuard, updates: UpdateTaskRequest, options: TaskWriteOptions | undefined): Promise<TaskItem | null> {
    return this.inTurn(async () => this.writeNow(tenantId, taskId, guard, updates, options));
  }

  private writeNow(tenantId: string, taskId: string, guard: () => TaskGuard, updates: UpdateTaskRequest, options: TaskWriteOptions | undefined): TaskItem | null {
    const tenant = requireTenantId(tenantId);
    const id = requireTaskId(taskId);
    const expected = guard();
    const update = validateUpdateTask(updates);
    const { fencingToken, fence } = validateWriteOptions(options);
    assertFenceHolds(this.options.fences, { fence });
    if (fence) this.stagedFences?.push(fence);
    const current = this.tenants.get(tenant)?.get(id);
    if (!current) return null;
    const planned = planTaskWrite(tenant, current, expected, update, fencingToken);
    if (!planned) return null;
    const written: TaskItem = { ...planned, updatedAt: nextUpdatedAt(current.updatedAt) };
    this.tenants.get(tenant)?.set(id, written);
    return copy(written);
  }

  /** Runs `fn` once every write and unit of work begun before it has ended. */
  private inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.turn.then(fn);
    this.turn = result.catch(() => undefined);
    return result;
  }

  private find(tenantId: string, taskId: string): TaskItem | undefined {
    return this.tenants.get(requireTenantId(tenantId))?.get(requireTaskId(taskId));
  }
}
