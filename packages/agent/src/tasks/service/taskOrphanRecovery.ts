import {
  type Logger,
  type MaintenanceTask,
  type ProjectTaskExecutionMutex,
  type TaskLifecycleNotifier,
  type TaskRunLiveness,
  type ThreadRunScope,
  createTaskRunLiveness,
  queueScopeOf,
  scanEveryTask,
  tryAcquireThreadRun,
} from "@axiom-lattice/core";
import { type LeaseStore, type TaskItem, TaskStatus, type TaskStore, type UnitOfWork } from "@axiom-lattice/protocols";
import type { TaskMessageDeps } from "../taskMessages";
import { resumeCaller } from "../taskResumption";
import { taskRunMessageId, taskRunThreadOf } from "../taskRunPlace";
import { isProjectTask } from "../taskRuntimeDeps";
import { announcedTaskWrite } from "../announcedTaskWrite";

/** Who converged a task, as its `context.recovered_by` records it. */
export const RecoveryActor = {
  /** The sweep at startup and in the maintenance loop. */
  SWEEP: "system:orphan-recovery",
  /** `lattice-gateway task:recover`. */
  ON_DEMAND: "system:on-demand-recovery",
} as const;
export type RecoveryActor = (typeof RecoveryActor)[keyof typeof RecoveryActor];

export type TaskRecoveryResult = "converged" | "skipped:live" | "skipped:queued" | "skipped:project_task" | "skipped:not_in_progress" | "not_found";

export type OrphanSweepCounts = Record<TaskRecoveryResult | "errors", number>;

/** `context` key naming the actor that converged an orphaned task. */
export const RECOVERED_BY_KEY = "recovered_by";

export interface TaskOrphanRecoveryDeps extends TaskMessageDeps {
  tasks: TaskStore;
  leases: LeaseStore;
  /** Commits the convergence with its lifecycle event. */
  unitOfWork: UnitOfWork;
  /** Announces the convergence (local listeners, and peers through the outbox). */
  lifecycle: TaskLifecycleNotifier;
  /** Default: the lease-backed probe on `leases`. */
  liveness?: TaskRunLiveness;
  replicaId: string;
  logger: Logger;
  /** TTL of the thread-run lease held while converging. */
  threadRunTtlMs: number;
  /** Guards the resume of a delegating caller that is a project task (its run resumes as the task's current run). */
  machine?: ProjectTaskExecutionMutex;
}

const orphanedReason = (actor: RecoveryActor) => `Orphaned: no replica was running the task any more (converged by ${actor})`;

/**
 * Converges tasks whose run died with its replica: an `in_progress` task that no replica runs (by the
 * lease-backed liveness probe) is failed as orphaned and its delegating caller resumed with that
 * failure. A task that may still be running is never touched: a probe error counts as running, and
 * the task's thread-run lease is held while converging, so no run of it can start or settle meanwhile.
 */
export class TaskOrphanRecovery {
  private readonly liveness: TaskRunLiveness;

  constructor(private readonly deps: TaskOrphanRecoveryDeps) {
    this.liveness = deps.liveness ?? createTaskRunLiveness({ store: deps.leases, logger: deps.logger });
  }

  /** Converges one task if it is an orphan. */
  async recoverTask({ tenantId, taskId }: { tenantId: string; taskId: string }, actor: RecoveryActor): Promise<TaskRecoveryResult> {
    const task = await this.deps.tasks.getTask(tenantId, taskId);
    if (!task) return "not_found";
    // A project task's run is its project task machine's to settle: recovery never goes around it.
    if (isProjectTask(task)) return "skipped:project_task";
    if (task.status !== TaskStatus.IN_PROGRESS) return "skipped:not_in_progress";
    const thread = taskRunThreadOf(task);
    if (await this.liveness({ taskId, thread })) return "skipped:live";
    // A task never started has no thread to hold: the compare-and-set alone decides.
    const run = thread ? await tryAcquireThreadRun(thread, { store: this.deps.leases, ttlMs: this.deps.threadRunTtlMs, replicaId: this.deps.replicaId, logger: this.deps.logger }) : undefined;
    if (run === null) return "skipped:live";
    try {
      // Its own run-lifetime lease may have been taken since the probe read it.
      if (await this.liveness({ taskId })) return "skipped:live";
      // A start no replica has claimed yet (all busy, or a dead run's message taken back by a peer's
      // queue sweep) is a run to come, not an orphan: its processor settles the task.
      if (thread && (await this.runIsQueued(task, thread))) return "skipped:queued";
      return await this.converge(task, thread, actor);
    } finally {
      await run?.release();
    }
  }

  /** Recovers every `in_progress` task of every tenant, page by page; one task's failure does not stop the sweep. */
  async recoverOrphanedTasks(actor: RecoveryActor): Promise<OrphanSweepCounts> {
    const counts: OrphanSweepCounts = { converged: 0, "skipped:live": 0, "skipped:queued": 0, "skipped:project_task": 0, "skipped:not_in_progress": 0, not_found: 0, errors: 0 };
    for await (const task of scanEveryTask(this.deps.tasks, [TaskStatus.IN_PROGRESS])) {
      try {
        counts[await this.recoverTask({ tenantId: task.tenantId, taskId: task.id }, actor)] += 1;
      } catch (error) {
        counts.errors += 1;
        this.deps.logger.warn({ phase: "orphan_recovery", tenantId: task.tenantId, taskId: task.id, err: error }, "orphan recovery of a task failed; the next pass retries it");
      }
    }
    return counts;
  }

  /**
   * The periodic sweep, for the maintenance loop: a task orphaned while its dead replica's leases
   * were still live is converged on a later pass, once they lapsed.
   */
  maintenanceTask(intervalMs: number): MaintenanceTask {
    return {
      name: "task-orphan-recovery",
      intervalMs,
      run: async () => {
        const counts = await this.recoverOrphanedTasks(RecoveryActor.SWEEP);
        if (counts.converged > 0 || counts.errors > 0) this.deps.logger.info({ phase: "orphan_recovery", counts }, "orphaned tasks recovered");
        return counts;
      },
    };
  }

  private async runIsQueued(task: TaskItem, thread: ThreadRunScope): Promise<boolean> {
    const run = await this.deps.queue.getMessage(taskRunMessageId(task), queueScopeOf(thread));
    return run?.status === "pending";
  }

  /**
   * In this order, so a crash part-way is finished later: (1) fail the task (compare-and-set: a run
   * or a cancel that settled it first wins) and announce it, in one transaction; (2) resume the caller, idempotently, as
   * the run's own settlement would; (3) drop the dead run's queued messages so it is not run again.
   * After a crash between (1) and (3) the leftover message runs, finds its task settled and resumes
   * the caller itself (once, by the resume's fixed id).
   */
  private async converge(task: TaskItem, thread: ThreadRunScope | undefined, actor: RecoveryActor): Promise<TaskRecoveryResult> {
    const { tasks, unitOfWork, lifecycle, queue, wake, machine, logger } = this.deps;
    const failed = await announcedTaskWrite({ unitOfWork, lifecycle }, (inTx) =>
      inTx.updateIfSnapshot(
        task.tenantId,
        task.id,
        { status: task.status, updatedAt: task.updatedAt },
        { status: TaskStatus.FAILED, failureReason: orphanedReason(actor), context: { ...task.context, [RECOVERED_BY_KEY]: actor } },
      ),
    );
    if (!failed) {
      const current = await tasks.getTask(task.tenantId, task.id);
      if (!current) return "not_found";
      // Still in progress but written since it was read: someone is working on it.
      return current.status === TaskStatus.IN_PROGRESS ? "skipped:live" : "skipped:not_in_progress";
    }
    await resumeCaller({ queue, wake, tasks: { store: tasks, events: lifecycle, announced: { unitOfWork, lifecycle }, machine } }, failed);
    if (thread) {
      // Safe while we hold the thread's run lease: no replica can be running these messages.
      await queue.resetProcessingToPending(thread);
      await queue.clearMessages(thread);
    }
    logger.info({ phase: "orphan_recovery", tenantId: task.tenantId, taskId: task.id, actor }, "orphaned task failed and its caller resumed");
    return "converged";
  }
}
