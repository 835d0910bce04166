import {
  ScheduledTaskStatus,
  type NewScheduledTask,
  type ScheduleStorage,
  type ScheduledTaskDefinition,
  type ScheduledTaskUpdate,
} from "@axiom-lattice/protocols";
import { getReplicaId } from "../identity/replicaId";
import { type Logger, getLogger } from "../logging/logger";
import { type LatticeObserver, NO_OBSERVER } from "../observability/latticeObserver";
import { nextCronRunAt } from "./cronSchedule";
import { ScheduleNotFoundError, ScheduleStateError } from "./scheduleErrors";
import {
  type ScheduleCronInput,
  type ScheduleOnceInput,
  type ScheduleRequestContext,
  parseScheduleCronInput,
  parseScheduleOnceInput,
} from "./scheduleRequest";
import { type FireOutcome, type RetryBackoffOptions, planFire, settleFire } from "./scheduleSettlement";
import { isCronTask, scheduledRunAt } from "./scheduledRunAt";
import { setTimerAt } from "./timerAt";
import { SCHEDULE_HEARTBEAT_MS, SCHEDULE_MISSED_FIRE_GRACE_MS, SCHEDULE_STALE_RUNNING_MS, SCHEDULE_STORAGE_RETRY_MS } from "../defaults";

/** One fire of a schedule, as its handler sees it. */
export interface ScheduleFire {
  task: ScheduledTaskDefinition;
  /** The fire's scheduled time (epoch ms); with `task.taskId` it identifies the fire. */
  scheduledAt: number;
  replicaId: string;
}

/** Runs a fire; a thrown error (or rejection) fails it, to be retried while retries remain. */
export type ScheduleHandler = (fire: ScheduleFire) => Promise<void> | void;

export interface ScheduleClientOptions {
  storage: ScheduleStorage;
  /** Defaults to this process's replica id. */
  replicaId?: string;
  /** Default: the process-wide logger. */
  logger?: Logger;
  /** Called after every write peers should react to; wire it to the `schedule-changed` outbox topic. */
  onChange?: (taskId: string) => void | Promise<void>;
  /** `restore()` requeues `running` tasks not updated for this long (default 30 min). */
  staleRunningMs?: number;
  /** How often a running handler refreshes its task's `updatedAt` (default 60 s); keep it well below `staleRunningMs`. */
  heartbeatIntervalMs?: number;
  /** A fire claimed later than this after its time counts as missed, for the catch-up policy (default 60 s). */
  missedFireGraceMs?: number;
  retryBackoff?: RetryBackoffOptions;
  /** Told about every fire this replica claims or loses to a peer (metrics). */
  observer?: LatticeObserver;
}

export interface RestoreResult {
  /** Stale `running` tasks put back to `pending`. */
  requeued: number;
  /** Schedules this replica now has a timer for. */
  armed: number;
}

// After a storage failure, look at the task again this much later rather than forget it.

/**
 * Runs registered handlers on schedules shared by every replica. Each replica arms a timer for
 * every active schedule; when it fires, the replica claims that fire (task id + scheduled time) in
 * the store before running the handler, so exactly one replica runs it and the others skip.
 */
export class DefaultScheduleClient {
  private readonly storage: ScheduleStorage;
  private readonly replicaId: string;
  private readonly logger: Logger;
  private readonly onChange?: (taskId: string) => void | Promise<void>;
  private readonly staleRunningMs: number;
  private readonly heartbeatIntervalMs: number;
  private readonly missedFireGraceMs: number;
  private readonly retryBackoff: RetryBackoffOptions;
  private readonly observer: LatticeObserver;
  private readonly handlers = new Map<string, ScheduleHandler>();
  private readonly armed = new Map<string, { runAt: number; cancel: () => void }>();
  private readonly recoveries = new Map<string, () => void>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(options: ScheduleClientOptions) {
    this.storage = options.storage;
    this.replicaId = options.replicaId ?? getReplicaId();
    this.logger = options.logger ?? getLogger();
    this.onChange = options.onChange;
    this.staleRunningMs = options.staleRunningMs ?? SCHEDULE_STALE_RUNNING_MS;
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? SCHEDULE_HEARTBEAT_MS;
    this.missedFireGraceMs = options.missedFireGraceMs ?? SCHEDULE_MISSED_FIRE_GRACE_MS;
    this.retryBackoff = options.retryBackoff ?? {};
    this.observer = options.observer ?? NO_OBSERVER;
  }

  /** Declares how fires of `taskType` run; one handler per type. */
  registerHandler(taskType: string, handler: ScheduleHandler): void {
    if (this.handlers.has(taskType)) throw new Error(`A handler for task type "${taskType}" is already registered`);
    this.handlers.set(taskType, handler);
  }

  hasHandler(taskType: string): boolean {
    return this.handlers.has(taskType);
  }

  /** Schedules one fire; a refused request rejects with a `ScheduleRequestError` and stores nothing. */
  async scheduleOnce(input: ScheduleOnceInput): Promise<ScheduledTaskDefinition> {
    return this.create(parseScheduleOnceInput(input, this.requestContext()));
  }

  /** Schedules fires on a cron expression; a refused request rejects with a `ScheduleRequestError` and stores nothing. */
  async scheduleCron(input: ScheduleCronInput): Promise<ScheduledTaskDefinition> {
    return this.create(parseScheduleCronInput(input, this.requestContext()));
  }

  /** The schedule, or `null` when it does not exist or belongs to another tenant. */
  async get(taskId: string, tenantId?: string): Promise<ScheduledTaskDefinition | null> {
    const task = await this.storage.get(taskId);
    return task && (tenantId === undefined || task.tenantId === tenantId) ? task : null;
  }

  /** Every schedule of the tenant (every tenant when omitted), oldest first. */
  list(tenantId?: string): Promise<ScheduledTaskDefinition[]> {
    return this.storage.getAllTasks(tenantId);
  }

  /** Stops a pending or running schedule from firing until resumed (a run in progress finishes). */
  pause(taskId: string, tenantId?: string): Promise<ScheduledTaskDefinition> {
    return this.transition(taskId, tenantId, "paused", [ScheduledTaskStatus.PENDING, ScheduledTaskStatus.RUNNING], () => ({
      status: ScheduledTaskStatus.PAUSED,
    }));
  }

  /** Resumes a paused schedule; a cron schedule continues with its next fire after now. */
  resume(taskId: string, tenantId?: string): Promise<ScheduledTaskDefinition> {
    return this.transition(taskId, tenantId, "resumed", [ScheduledTaskStatus.PAUSED], (task) =>
      isCronTask(task)
        ? { status: ScheduledTaskStatus.PENDING, nextRunAt: nextCronRunAt(task, Date.now()) ?? task.nextRunAt, retryCount: 0 }
        : { status: ScheduledTaskStatus.PENDING },
    );
  }

  /** Cancels a schedule for good (cancelling a cancelled one is a no-op). */
  async cancel(taskId: string, tenantId?: string): Promise<ScheduledTaskDefinition> {
    const task = await this.owned(taskId, tenantId);
    if (task.status === ScheduledTaskStatus.CANCELLED) return task;
    return this.transition(
      taskId,
      tenantId,
      "cancelled",
      [ScheduledTaskStatus.PENDING, ScheduledTaskStatus.RUNNING, ScheduledTaskStatus.PAUSED],
      () => ({ status: ScheduledTaskStatus.CANCELLED }),
    );
  }

  /**
   * Startup recovery, for the one replica that leads it: requeues `running` tasks left unsettled by
   * a crash (older than `staleRunningMs`), then arms every active schedule.
   */
  async restore(): Promise<RestoreResult> {
    const requeued = await this.storage.requeueStaleRunning(this.staleRunningMs);
    const armed = await this.armActive();
    this.log("info", { event: "restored", requeued, armed }, "schedules restored");
    return { requeued, armed };
  }

  /** Arms a timer for every active schedule (what every other replica does at startup); returns how many. */
  async armActive(): Promise<number> {
    for (const task of await this.storage.getActiveTasks()) this.armFor(task.taskId, task);
    return this.armed.size;
  }

  /** A peer changed the schedule: re-read it and arm or disarm this replica's timer. */
  async handleScheduleChanged(taskId: string): Promise<void> {
    this.armFor(taskId, await this.storage.get(taskId));
  }

  /** Disarms every timer and waits for fires in progress to settle. The client is not used again. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const { cancel } of this.armed.values()) cancel();
    this.armed.clear();
    for (const cancel of this.recoveries.values()) cancel();
    this.recoveries.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private requestContext(): ScheduleRequestContext {
    return { now: Date.now(), isKnownTaskType: (taskType) => this.hasHandler(taskType) };
  }

  private async create(task: NewScheduledTask): Promise<ScheduledTaskDefinition> {
    const saved = await this.storage.save(task);
    this.armFor(saved.taskId, saved);
    await this.notify(saved.taskId);
    return saved;
  }

  private async owned(taskId: string, tenantId: string | undefined): Promise<ScheduledTaskDefinition> {
    const task = await this.get(taskId, tenantId);
    if (!task) throw new ScheduleNotFoundError(taskId);
    return task;
  }

  private async transition(
    taskId: string,
    tenantId: string | undefined,
    verb: string,
    from: ScheduledTaskStatus[],
    updates: (task: ScheduledTaskDefinition) => ScheduledTaskUpdate,
  ): Promise<ScheduledTaskDefinition> {
    const task = await this.owned(taskId, tenantId);
    if (!from.includes(task.status)) throw new ScheduleStateError(taskId, task.status, verb);
    await this.storage.update(taskId, updates(task));
    const updated = await this.owned(taskId, tenantId);
    this.armFor(taskId, updated);
    await this.notify(taskId);
    return updated;
  }

  /** Keeps this replica's timer in line with the task as stored (`null`: deleted). */
  private armFor(taskId: string, task: ScheduledTaskDefinition | null): void {
    const runAt = task ? scheduledRunAt(task) : undefined;
    if (!task || runAt === undefined || this.stopped) {
      this.disarm(taskId);
    } else if (task.status === ScheduledTaskStatus.PENDING) {
      this.arm(taskId, task.taskType, runAt);
    } else if (task.status === ScheduledTaskStatus.RUNNING && isCronTask(task)) {
      // A replica is running this fire; be ready to claim the one after it.
      const next = nextCronRunAt(task, runAt);
      if (next === undefined) this.disarm(taskId);
      else this.arm(taskId, task.taskType, next);
    } else {
      this.disarm(taskId);
    }
  }

  private arm(taskId: string, taskType: string, runAt: number): void {
    const current = this.armed.get(taskId);
    if (current?.runAt === runAt) return;
    current?.cancel();
    const cancel = setTimerAt(runAt, () => {
      this.armed.delete(taskId);
      this.track(taskId, this.fire(taskId, taskType, runAt));
    });
    this.armed.set(taskId, { runAt, cancel });
  }

  private disarm(taskId: string): void {
    this.armed.get(taskId)?.cancel();
    this.armed.delete(taskId);
  }

  /** Claim before execute: only the replica whose claim of (taskId, runAt) wins runs the handler. */
  private async fire(taskId: string, taskType: string, runAt: number): Promise<void> {
    const handler = this.handlers.get(taskType);
    if (!handler) {
      this.log("warn", { event: "no-handler", taskId, taskType }, "no handler registered here for this task type; leaving the fire to peers");
      return;
    }
    if (!(await this.storage.claimScheduledRun(taskId, runAt))) {
      this.log("debug", { event: "claim-lost", taskId, runAt }, "fire claimed elsewhere; skipping");
      this.observer.scheduleClaimLost?.({ taskType });
      await this.handleScheduleChanged(taskId);
      return;
    }
    const lateMs = Date.now() - runAt;
    this.log("debug", { event: "claim-won", taskId, runAt, lateMs }, "fire claimed");
    // Read after the claim: a copy read earlier may predate a peer's settlement of the previous fire.
    const task = await this.storage.get(taskId);
    if (!task) return;
    const plan = planFire(task, lateMs, this.missedFireGraceMs);
    let outcome: FireOutcome;
    if (plan === "skip") {
      this.log("info", { event: "missed-fire-skipped", taskId, runAt, lateMs }, "missed fire skipped (catch-up policy skip)");
      outcome = { kind: "skipped" };
    } else {
      if (plan === "catch-up") this.log("info", { event: "missed-fire-caught-up", taskId, runAt, lateMs }, "running a missed fire once");
      const startedAt = Date.now();
      const error = await this.runHandler(handler, task, runAt);
      outcome = error === undefined ? { kind: "succeeded", startedAt, caughtUp: plan === "catch-up" } : { kind: "failed", startedAt, error };
    }
    await this.storage.settleScheduledRun(taskId, runAt, settleFire(task, { runAt, outcome, now: Date.now() }, this.retryBackoff));
    this.observer.scheduleFired?.({ taskType, outcome: outcome.kind });
    await this.notify(taskId);
    await this.handleScheduleChanged(taskId);
  }

  /** Runs the handler while heartbeating the claim; resolves to the failure message, if any. */
  private async runHandler(handler: ScheduleHandler, task: ScheduledTaskDefinition, runAt: number): Promise<string | undefined> {
    const heartbeat = setInterval(() => {
      this.storage.heartbeatScheduledRun(task.taskId).catch((err: unknown) => {
        this.log("warn", { event: "heartbeat-failed", taskId: task.taskId, err }, "schedule heartbeat failed");
      });
    }, this.heartbeatIntervalMs);
    heartbeat.unref();
    try {
      await handler({ task, scheduledAt: runAt, replicaId: this.replicaId });
      return undefined;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log("warn", { event: "handler-failed", taskId: task.taskId, runAt, err: error }, "schedule handler failed");
      return message || "handler failed";
    } finally {
      clearInterval(heartbeat);
    }
  }

  private async notify(taskId: string): Promise<void> {
    if (!this.onChange) return;
    try {
      await this.onChange(taskId);
    } catch (err) {
      this.log("warn", { event: "notify-failed", taskId, err }, "schedule change notification failed");
    }
  }

  /** Keeps a fire's promise for `stop()`; a storage failure is logged and the task looked at again later. */
  private track(taskId: string, work: Promise<void>): void {
    const tracked = work.catch((err: unknown) => {
      this.log("error", { event: "fire-failed", taskId, err }, "schedule fire failed; looking again shortly");
      if (this.stopped) return;
      this.recoveries.get(taskId)?.();
      const cancel = setTimerAt(Date.now() + SCHEDULE_STORAGE_RETRY_MS, () => {
        this.recoveries.delete(taskId);
        this.track(taskId, this.handleScheduleChanged(taskId));
      });
      this.recoveries.set(taskId, cancel);
    });
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  private log(level: "debug" | "info" | "warn" | "error", fields: Record<string, unknown>, message: string): void {
    this.logger[level]({ phase: "schedule", replica: this.replicaId, ...fields }, message);
  }
}
