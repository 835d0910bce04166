import {
  type Logger,
  type MaintenanceTask,
  type ProjectTaskAdmissionNotifier,
  type ProjectTaskExecutionMutex,
  type TaskLifecycleNotifier,
  type ThreadRunScope,
  getThreadRunOwner,
  scanEveryTask,
  taskLifecycleEventOf,
} from "@axiom-lattice/core";
import {
  type LeaseStore,
  type ProjectStore,
  type ProjectTaskAdmissionEvent,
  type TaskItem,
  TaskStatus,
  type TaskStore,
  type UnitOfWork,
} from "@axiom-lattice/protocols";
import { type TaskMessageDeps, startTaskRun } from "../taskMessages";
import { EXECUTION_REQUESTED_AT_KEY, TASK_RUN_KEY, placeEntry, taskRunMessageId, taskRunThreadOf, taskThreadId } from "../taskRunPlace";
import { isProjectBot } from "../projectMembership";
import { isProjectTask, projectTaskScopeOf } from "../taskRuntimeDeps";
import { announcedTaskWrite } from "../announcedTaskWrite";
import { TaskError } from "./taskErrors";

/** What one pass of a project task's machine did with it. */
export type ProjectTaskRunOutcome =
  /** Its run is queued on its thread (now, or by an earlier pass) and the thread is woken. */
  | { kind: "started"; task: TaskItem; thread: ThreadRunScope; messageId: string }
  /** A peer holds the task's thread and runs it: nothing settles here, the peer finishes it. */
  | { kind: "deferred"; task: TaskItem; thread: ThreadRunScope; messageId: string }
  /** Nothing to do: the task is gone, settled, or not (or no longer) asked to run. */
  | { kind: "idle"; task: TaskItem | null };

/** Statuses a task may be dispatched from: never run yet, or ended without success (a retry). */
const DISPATCHABLE: readonly TaskStatus[] = [TaskStatus.PENDING, TaskStatus.FAILED, TaskStatus.INTERRUPTED, TaskStatus.CANCELLED];

export interface TaskDispatcherOptions {
  tasks: TaskStore;
  /** Commits a task write with the events announcing it. */
  unitOfWork: UnitOfWork;
  projects: Pick<ProjectStore, "listBots">;
  leases: LeaseStore;
  machine: ProjectTaskExecutionMutex;
  admissions: ProjectTaskAdmissionNotifier;
  lifecycle: TaskLifecycleNotifier;
  /** Queues and wakes the task's run. */
  runs: TaskMessageDeps;
  replicaId: string;
  logger: Logger;
}

const isRequested = (task: TaskItem) => typeof task.context?.[EXECUTION_REQUESTED_AT_KEY] === "string";

/**
 * Dispatches project tasks, and runs the project task machine of a gateway. Dispatching stamps the
 * task's execution request and announces the admission to every replica in one transaction;
 * whichever observes it (all do, through the outbox) passes
 * the task through its machine, one pass at a time per machine across the cluster: the first pass
 * starts the run on the task's thread, later ones find it started. The run's end is settled by the
 * agent runtime, under the same machine. Every write of a pass carries the machine lease's fencing
 * token, so a replica that lost the machine mid-pass cannot overwrite its successor's writes.
 */
export class TaskDispatcher {
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly options: TaskDispatcherOptions) {}

  /** Starts observing admissions (local ones, and the peers' through the outbox poller). */
  start(): void {
    // Not awaited: the publisher (a dispatch request, the outbox poller delivering every topic) must
    // not wait for the machine, which a dead replica may hold for a lease's lifetime.
    this.unsubscribe ??= this.options.admissions.subscribe((event) => void this.advanceOrWarn(event.tenantId, event.taskId));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /**
   * Asks for the task to run: stamps `context.execution_requested_at` (compare-and-set on the status
   * and version read) and announces the admission in one transaction, so every replica hears of each
   * stamp and of nothing else. It never waits for the machine, which may be held for a lease's
   * lifetime by a replica that died: the stamp only queues the task for the machine's next pass.
   */
  async dispatch(tenantId: string, taskId: string): Promise<TaskItem> {
    const { tasks, projects, unitOfWork, admissions, lifecycle } = this.options;
    const task = await tasks.getTask(tenantId, taskId);
    if (!task) throw new TaskError("NOT_FOUND", `Task ${taskId} not found`);
    if (!isProjectTask(task)) throw new TaskError("TASK_NOT_DISPATCHABLE", "Only an assistant's task in a project can be dispatched");
    if (!(await isProjectBot(projects, tenantId, task.projectId, task.ownerId))) {
      throw new TaskError("NOT_A_PROJECT_MEMBER", `Assistant ${task.ownerId} is not a member of project ${task.projectId}`);
    }
    if (!DISPATCHABLE.includes(task.status)) {
      throw new TaskError("INVALID_TASK_STATE", `Task ${taskId} is ${task.status}; only a ${DISPATCHABLE.join(", ")} task can be dispatched`);
    }
    const thread: ThreadRunScope = { tenantId, assistantId: task.ownerId, threadId: taskThreadId(task.id) };
    const context = { ...task.context, [EXECUTION_REQUESTED_AT_KEY]: new Date().toISOString(), [TASK_RUN_KEY]: placeEntry(thread) };
    const dispatched = await unitOfWork.inTransaction(async (tx) => {
      const written = await tx.tasks.updateIfSnapshot(tenantId, taskId, task, { status: TaskStatus.PENDING, context });
      if (!written) return null;
      if (written.status !== task.status) await lifecycle.appendWithin(tx, taskLifecycleEventOf(written));
      await admissions.appendWithin(tx, admissionOf(written, task.projectId));
      return written;
    });
    if (!dispatched) throw new TaskError("INVALID_TASK_STATE", `Task ${taskId} changed while it was being dispatched; try again`);
    if (dispatched.status !== task.status) await lifecycle.deliverLocally(taskLifecycleEventOf(dispatched));
    await admissions.deliverLocally(admissionOf(dispatched, task.projectId));
    return dispatched;
  }

  /**
   * One pass of the task's machine: starts a requested task (pending → in_progress, then its run is
   * queued), or makes sure a started one's run is queued; a task whose thread a peer holds is deferred
   * to that peer.
   */
  async advance(tenantId: string, taskId: string): Promise<ProjectTaskRunOutcome> {
    const { tasks, machine, logger } = this.options;
    const found = await tasks.getTask(tenantId, taskId);
    if (!found || !isProjectTask(found)) return { kind: "idle", task: found };
    return machine.runExclusive(projectTaskScopeOf(found), async ({ fencingToken }) => {
      const enteredAt = new Date();
      const outcome = await this.pass(tenantId, taskId, fencingToken);
      // Every pass, with its section's bounds and token: operators (and e2e scenario 2) can check from
      // the logs alone that no two passes of a machine overlapped and that tokens only grew.
      logger.debug(
        { phase: "project_task_machine", taskId, outcome: outcome.kind, fencingToken, enteredAt: enteredAt.toISOString(), leftAt: new Date().toISOString() },
        "project task machine pass",
      );
      return outcome;
    });
  }

  /** The pass itself, inside the machine's exclusive section. */
  private async pass(tenantId: string, taskId: string, fencingToken: string | undefined): Promise<ProjectTaskRunOutcome> {
    const { tasks, unitOfWork, runs, leases, replicaId, lifecycle } = this.options;
    const task = await tasks.getTask(tenantId, taskId);
    const thread = task && taskRunThreadOf(task);
    if (!task || !thread || !isRequested(task)) return { kind: "idle", task };
    const messageId = taskRunMessageId(task);
    if (task.status === TaskStatus.PENDING) {
      const started = await announcedTaskWrite({ unitOfWork, lifecycle }, (inTx) =>
        inTx.updateIfSnapshot(tenantId, taskId, task, { status: TaskStatus.IN_PROGRESS }, fencingToken ? { fencingToken } : undefined),
      );
      if (!started) return { kind: "idle", task: await tasks.getTask(tenantId, taskId) };
      await startTaskRun(runs, started);
      return { kind: "started", task: started, thread, messageId };
    }
    if (task.status !== TaskStatus.IN_PROGRESS) return { kind: "idle", task };
    const owner = await getThreadRunOwner(thread, { store: leases });
    if (owner !== null && owner !== replicaId) return { kind: "deferred", task, thread, messageId };
    await startTaskRun(runs, task);
    return { kind: "started", task, thread, messageId };
  }

  /**
   * Passes every requested project task that has not ended through its machine. An admission is never
   * lost (it commits with its stamp), but a pass still can be: one that failed on every replica, or
   * one cut short between the start's write and its run's enqueue (the queue is not in the unit of
   * work), or a resume cut short the same way. This sweep starts those. Passes are idempotent.
   * Returns how many it passed.
   */
  async sweepAdmissions(): Promise<{ passed: number }> {
    let passed = 0;
    for await (const task of scanEveryTask(this.options.tasks, [TaskStatus.PENDING, TaskStatus.IN_PROGRESS])) {
      if (!isProjectTask(task) || !isRequested(task)) continue;
      await this.advanceOrWarn(task.tenantId, task.id);
      passed += 1;
    }
    return { passed };
  }

  /** {@link sweepAdmissions}, for the maintenance loop. */
  maintenanceTask(intervalMs: number): MaintenanceTask {
    return { name: "project-task-admissions", intervalMs, run: () => this.sweepAdmissions() };
  }

  /** A pass whose failure is logged, not thrown: the admissions sweep passes the task again. */
  private async advanceOrWarn(tenantId: string, taskId: string): Promise<void> {
    try {
      await this.advance(tenantId, taskId);
    } catch (error) {
      this.options.logger.warn({ tenantId, taskId, err: error }, "project task pass failed; the admissions sweep passes it again");
    }
  }
}

function admissionOf(task: TaskItem, projectId: string): ProjectTaskAdmissionEvent {
  const event: ProjectTaskAdmissionEvent = {
    tenantId: task.tenantId,
    projectId,
    taskId: task.id,
    ownerId: task.ownerId,
    updatedAt: task.updatedAt.toISOString(),
  };
  if (task.workspaceId !== undefined) event.workspaceId = task.workspaceId;
  return event;
}
