import {
  type MessageQueueStore,
  type Logger,
  type ProjectTaskAdmissionNotifier,
  type ProjectTaskExecutionMutex,
  type TaskLifecycleNotifier,
} from "@axiom-lattice/core";
import {
  type AssistantStore,
  type CreateTaskRequest,
  type LeaseStore,
  type ProjectStore,
  type TaskItem,
  TaskStatus,
  type TaskStore,
  type UnitOfWork,
  type UpdateTaskRequest,
} from "@axiom-lattice/protocols";
import { isProjectBot } from "../projectMembership";
import type { TaskMessageDeps } from "../taskMessages";
import { resumeTaskRun } from "../taskResumption";
import { taskRunThreadOf } from "../taskRunPlace";
import type { TaskRuntimeOptions } from "../taskRuntimeDeps";
import { announcedTaskWrite } from "../announcedTaskWrite";
import { cancelTask } from "./taskCancellation";
import { TaskDispatcher } from "./taskDispatch";
import { TaskError } from "./taskErrors";
import { answeringMachineBusy } from "./taskMachineWait";
import { type RecoveryActor, type TaskRecoveryResult, TaskOrphanRecovery } from "./taskOrphanRecovery";
import { requireClientStatusChange } from "./taskStatusRules";

/** The stores the task service works on. */
export interface TaskServiceStores {
  tasks: TaskStore;
  projects: Pick<ProjectStore, "getProject" | "listBots">;
  assistants: Pick<AssistantStore, "getAssistant">;
  leases: LeaseStore;
  queue: MessageQueueStore;
  /** Commits task writes with the events announcing them. */
  unitOfWork: UnitOfWork;
}

export interface TaskServiceOptions {
  stores: TaskServiceStores;
  /** Task status changes: local listeners, and peers through the outbox. */
  lifecycle: TaskLifecycleNotifier;
  /** Tasks admitted to a project task machine. */
  admissions: ProjectTaskAdmissionNotifier;
  /** Serialises the work on each project task machine, in this process and across replicas. */
  machine: ProjectTaskExecutionMutex;
  /** Wakes a thread's processor after its run was queued (this replica's agents, or peers by NOTIFY). */
  wake: TaskMessageDeps["wake"];
  replicaId: string;
  logger: Logger;
  /** TTL of the thread-run lease recovery holds while converging a task. */
  threadRunTtlMs: number;
  /** How long a request's own write waits for a project task's machine before answering `TASK_MACHINE_BUSY`. */
  requestMachineWaitMs: number;
}

/** A task's fields a client may change, with the status it may move it to. */
export type TaskUpdate = Omit<UpdateTaskRequest, "status" | "context" | "result" | "failureReason"> & { status?: TaskStatus };

/**
 * Every way a task is written from outside its run: created, changed, deleted, dispatched,
 * cancelled, resumed, recovered. Each status change commits with its lifecycle event. Refusals throw
 * {@link TaskError}, with a code of the API and nothing written.
 */
export class TaskService {
  /** Dispatches project tasks and starts them when their admission is observed. */
  readonly dispatcher: TaskDispatcher;
  /** Fails orphaned tasks (their run died with its replica) and resumes their callers. */
  readonly recovery: TaskOrphanRecovery;
  /** What the agent runtime writes tasks with (delegation, the runs' ends). */
  readonly runtime: TaskRuntimeOptions;
  private readonly runs: TaskMessageDeps;
  /** The options of a request's own writes: a project task's machine is waited for briefly. */
  private readonly requestWrites: TaskRuntimeOptions;

  constructor(private readonly options: TaskServiceOptions) {
    const { stores, lifecycle, admissions, machine, wake, replicaId, logger } = options;
    this.runtime = { store: stores.tasks, events: lifecycle, announced: { unitOfWork: stores.unitOfWork, lifecycle }, machine };
    this.requestWrites = { ...this.runtime, machineWaitMs: options.requestMachineWaitMs };
    this.runs = { queue: stores.queue, wake };
    this.dispatcher = new TaskDispatcher({ ...stores, admissions, lifecycle, machine, runs: this.runs, replicaId, logger });
    this.recovery = new TaskOrphanRecovery({
      ...this.runs,
      tasks: stores.tasks,
      leases: stores.leases,
      unitOfWork: stores.unitOfWork,
      lifecycle,
      replicaId,
      logger,
      threadRunTtlMs: options.threadRunTtlMs,
      machine,
    });
  }

  /** Creates a task, once what it refers to exists: its project, its owner assistant (a bot of the project), its parent. */
  async create(tenantId: string, request: CreateTaskRequest): Promise<TaskItem> {
    const { projects, assistants, tasks } = this.options.stores;
    const { projectId, ownerType, ownerId, parentId } = request;
    if (projectId !== undefined && !(await projects.getProject(tenantId, projectId))) {
      throw new TaskError("NOT_FOUND", `Project ${projectId} not found`);
    }
    if (ownerType === "agent") {
      if (!(await assistants.getAssistant(tenantId, ownerId))) throw new TaskError("NOT_FOUND", `Assistant ${ownerId} not found`);
      if (projectId !== undefined && !(await isProjectBot(projects, tenantId, projectId, ownerId))) {
        throw new TaskError("NOT_A_PROJECT_MEMBER", `Assistant ${ownerId} is no bot of project ${projectId}: add it first (PUT /api/projects/${projectId}/bots/${ownerId})`);
      }
    }
    if (parentId !== undefined && !(await tasks.getTask(tenantId, parentId))) {
      throw new TaskError("NOT_FOUND", `Parent task ${parentId} not found`);
    }
    return tasks.createTask(tenantId, request);
  }

  /** The task; `NOT_FOUND` when the tenant has none of that id. */
  async get(tenantId: string, taskId: string): Promise<TaskItem> {
    const task = await this.options.stores.tasks.getTask(tenantId, taskId);
    if (!task) throw new TaskError("NOT_FOUND", `Task ${taskId} not found`);
    return task;
  }

  /**
   * Changes the fields given. A status change applies only if the task still has the status it was
   * read with (of concurrent changes one wins), and only as a client may make it; it commits with its
   * lifecycle event.
   */
  async update(tenantId: string, taskId: string, { status, ...fields }: TaskUpdate): Promise<TaskItem> {
    const { tasks, unitOfWork } = this.options.stores;
    if (status === undefined) {
      const updated = await tasks.updateTask(tenantId, taskId, fields);
      if (!updated) throw new TaskError("NOT_FOUND", `Task ${taskId} not found`);
      return updated;
    }
    const task = await this.get(tenantId, taskId);
    requireClientStatusChange(task, status);
    const { lifecycle } = this.options;
    const updated = await announcedTaskWrite({ unitOfWork, lifecycle }, (inTx) => inTx.updateIfStatusIn(tenantId, taskId, [task.status], { ...fields, status }));
    if (!updated) {
      await this.get(tenantId, taskId);
      throw new TaskError("INVALID_TASK_STATE", `Task ${taskId} is no longer ${task.status}: it changed meanwhile; read it and retry`);
    }
    return updated;
  }

  /** Deletes a task that is not `in_progress` (judged by the delete itself: one dispatched since it was read is kept). */
  async delete(tenantId: string, taskId: string): Promise<void> {
    if (await this.options.stores.tasks.deleteTask(tenantId, taskId, DELETABLE)) return;
    await this.get(tenantId, taskId);
    throw new TaskError("TASK_BUSY", `Task ${taskId} is in progress: cancel it before deleting it`);
  }

  /** Asks for a project task to run (see {@link TaskDispatcher.dispatch}). */
  dispatch(tenantId: string, taskId: string): Promise<TaskItem> {
    return this.dispatcher.dispatch(tenantId, taskId);
  }

  /** Cancels a task that has not ended, resuming a delegating caller (see {@link cancelTask}). */
  cancel(tenantId: string, taskId: string): Promise<TaskItem> {
    const { lifecycle, stores } = this.options;
    return cancelTask({ tasks: this.requestWrites, unitOfWork: stores.unitOfWork, runs: this.runs, lifecycle }, tenantId, taskId);
  }

  /**
   * Answers the question an `interrupted` task's run asked: the resume becomes the task's current run
   * (see {@link resumeTaskRun}), whose end settles the task like a start run. A delegating caller
   * already resumed with `interrupted` is not resumed again.
   */
  async resume(tenantId: string, taskId: string, value: unknown): Promise<TaskItem> {
    const found = await this.get(tenantId, taskId);
    if (found.status !== TaskStatus.INTERRUPTED || !taskRunThreadOf(found)) {
      throw new TaskError("INVALID_TASK_STATE", `Task ${taskId} is ${found.status}; only an interrupted task that ran can be resumed`);
    }
    const resumed = await answeringMachineBusy(taskId, () => resumeTaskRun({ ...this.runs, tasks: this.requestWrites }, found, value));
    if (!resumed) throw new TaskError("INVALID_TASK_STATE", `Task ${taskId} changed while it was being resumed (resumed or cancelled meanwhile); read it again`);
    return resumed;
  }

  /** Converges one task if its run died with its replica (see {@link TaskOrphanRecovery.recoverTask}). */
  recover(ref: { tenantId: string; taskId: string }, actor: RecoveryActor): Promise<TaskRecoveryResult> {
    return this.recovery.recoverTask(ref, actor);
  }
}

const DELETABLE: TaskStatus[] = Object.values(TaskStatus).filter((status) => status !== TaskStatus.IN_PROGRESS);
