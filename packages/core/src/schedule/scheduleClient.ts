import {
  SCHEDULE_CHANGED_TOPIC,
  ScheduledTaskStatus,
  type NewScheduledTask,
  type Page,
  type PageRequest,
  type ScheduleStore,
  type ScheduledRunSettlement,
  type ScheduledTaskDefinition,
  type ScheduledTaskUpdate,
} from "@axiom-lattice/protocols";
import type { MaintenanceTask } from "../coordination/maintenanceLoop";
import type { OutboxTopicHandlers } from "../outbox/outboxTopicHandlers";
import { getReplicaId } from "../identity/replicaId";
import { type Logger, defaultLogger } from "../logging/logger";
import { type LatticeObserver, NO_OBSERVER } from "../observability/latticeObserver";
import { nextCronRunAt } from "./cronSchedule";
import { ScheduleNotFoundError, ScheduleStateError } from "./scheduleErrors";
import {
  type CronScheduleChange,
  type ScheduleCronInput,
  type ScheduleOnceInput,
  type ScheduleRequestContext,
  parseCronChange,
  parseScheduleCronInput,
  parseScheduleOnceInput,
} from "./scheduleRequest";
import { type FireOutcome, type RetryBackoffOptions, planFire, settleFire } from "./scheduleSettlement";
import { isCronTask, scheduledRunAt } from "./scheduledRunAt";
import { setTimerAt } from "./timerAt";
import { SCHEDULE_HEARTBEAT_MS, SCHEDULE_MISSED_FIRE_GRACE_MS, SCHEDULE_STORAGE_RETRY_MS, scheduleStaleRunningMs } from "../defaults";

/** One fire of a schedule, as its handler sees it. */
export interface ScheduleFire {
  task: ScheduledTaskDefinition;
  /** The fire's scheduled time (epoch ms); with `task.taskId` it identifies the fire. */
  scheduledAt: number;
  replicaId: string;
  /**
   * Aborted when this replica stops: stop waiting and reject. A fire interrupted so is not settled;
   * its heartbeat stops, and the maintenance leader requeues it for a peer to run again.
   */
  signal: AbortSignal;
}

/** Runs a fire; a thrown error (or rejection) fails it, to be retried while retries remain. */
export type ScheduleHandler = (fire: ScheduleFire) => Promise<void> | void;

export interface ScheduleClientOptions {
  store: ScheduleStore;
  /** Defaults to this process's replica id. */
  replicaId?: string;
  /** Default: a new {@link defaultLogger}. */
  logger?: Logger;
  /** Called after every write peers should react to; wire it to the `schedule-changed` outbox topic. */
  onChange?: (taskId: string) => void | Promise<void>;
  /** How often a running handler refreshes its task's `updatedAt`, its heartbeat (default 2 s). */
  heartbeatIntervalMs?: number;
  /**
   * A `running` task whose heartbeat stopped this long ago lost its runner and is requeued
   * (default: three heartbeat intervals); keep it a few heartbeats above `heartbeatIntervalMs`.
   */
  staleRunningMs?: number;
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

/**
 * Runs registered handlers on schedules shared by every replica. Each replica arms a timer for
 * every active schedule; when it fires, the replica claims that fire (task id + scheduled time) in
 * the store before running the handler, so exactly one replica runs it and the others skip.
 */
export class DefaultScheduleClient {
  private readonly store: ScheduleStore;
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
  private readonly stopping = new AbortController();

  constructor(options: ScheduleClientOptions) {
    this.store = options.store;
    this.replicaId = options.replicaId ?? getReplicaId();
    this.logger = options.logger ?? defaultLogger();
    this.onChange = options.onChange;
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? SCHEDULE_HEARTBEAT_MS;
    this.staleRunningMs = options.staleRunningMs ?? scheduleStaleRunningMs(this.heartbeatIntervalMs);
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
    const task = await this.store.get(taskId);
    return task && (tenantId === undefined || task.tenantId === tenantId) ? task : null;
  }

  /** A page of the tenant's schedules (every tenant's when omitted), oldest first. */
  list(page: PageRequest, tenantId?: string): Promise<Page<ScheduledTaskDefinition>> {
    return this.store.listTasks(page, tenantId);
  }

  /** Every schedule of one task type of the tenant (every tenant when omitted), oldest first. */
  listOfType(taskType: string, tenantId?: string): Promise<ScheduledTaskDefinition[]> {
    return this.store.getTasksByType(taskType, tenantId);
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
   * Changes a cron schedule that is not finished: its payload, its expression, or whether it fires
   * (`active`); a refused change rejects with a `ScheduleRequestError` and stores nothing. Every
   * replica re-arms for it.
   */
  async changeCron(taskId: string, tenantId: string | undefined, change: CronScheduleChange): Promise<ScheduledTaskDefinition> {
    const task = await this.owned(taskId, tenantId);
    const changeable: ScheduledTaskStatus[] = [ScheduledTaskStatus.PENDING, ScheduledTaskStatus.RUNNING, ScheduledTaskStatus.PAUSED];
    if (!isCronTask(task) || !changeable.includes(task.status)) throw new ScheduleStateError(taskId, task.status, "changed");
    return this.transition(taskId, tenantId, "changed", changeable, (current) => parseCronChange(current, change, { now: Date.now() }));
  }

  /** Deletes a schedule for good; a fire in progress finishes, and no replica fires it again. */
  async delete(taskId: string, tenantId?: string): Promise<void> {
    await this.owned(taskId, tenantId);
    await this.store.delete(taskId);
    this.disarm(taskId);
    await this.notify(taskId);
  }

  /**
   * Startup recovery, for the one replica that leads it: requeues abandoned fires (as the maintenance
   * loop keeps doing), then arms every active schedule.
   */
  async restore(): Promise<RestoreResult> {
    const requeued = (await this.requeueAbandoned()).length;
    const armed = await this.armActive();
    this.log("info", { event: "restored", requeued, armed }, "schedules restored");
    return { requeued, armed };
  }

  /**
   * Puts fires whose runner stopped heartbeating (`running`, not updated for `staleRunningMs`) back
   * to `pending`, as the same fire, and tells every replica (`onChange`), so the one whose claim wins
   * runs it again per its catch-up policy. Resolves to the requeued task ids.
   */
  async requeueAbandoned(): Promise<string[]> {
    const requeued = await this.store.requeueStaleRunning(this.staleRunningMs);
    for (const taskId of requeued) {
      this.log("warn", { event: "requeued", taskId, staleRunningMs: this.staleRunningMs }, "schedule fire abandoned by its runner (no heartbeat); requeued");
      await this.notify(taskId);
      await this.handleScheduleChanged(taskId);
    }
    return requeued;
  }

  /** What the maintenance leader runs for schedules: {@link requeueAbandoned}, once per heartbeat interval. */
  maintenanceTasks(): MaintenanceTask[] {
    return [{ name: "schedule-requeue", intervalMs: this.heartbeatIntervalMs, run: () => this.requeueAbandoned() }];
  }

  /** Arms a timer for every active schedule (what every other replica does at startup); returns how many. */
  async armActive(): Promise<number> {
    for (const task of await this.store.getActiveTasks()) this.armFor(task.taskId, task);
    return this.armed.size;
  }

  /** Peers' `schedule-changed` events, handled by {@link handleScheduleChanged}. */
  outboxHandlers(): OutboxTopicHandlers {
    return { [SCHEDULE_CHANGED_TOPIC]: ({ taskId }) => this.handleScheduleChanged(taskId) };
  }

  /** A peer changed the schedule: re-read it and arm or disarm this replica's timer. */
  async handleScheduleChanged(taskId: string): Promise<void> {
    this.armFor(taskId, await this.store.get(taskId));
  }

  /**
   * Disarms every timer, aborts the signal handlers were given, and waits for fires in progress to
   * settle (or be left to peers). The client is not used again.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort(new Error("the schedule client is stopping"));
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
    const saved = await this.store.save(task);
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
    await this.store.update(taskId, updates(task));
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
    if (!(await this.store.claimScheduledRun(taskId, runAt))) {
      this.log("debug", { event: "claim-lost", taskId, runAt }, "fire claimed elsewhere; skipping");
      this.observer.scheduleClaimLost?.({ taskType });
      await this.handleScheduleChanged(taskId);
      return;
    }
    const lateMs = Date.now() - runAt;
    this.log("info", { event: "claim-won", taskId, runAt, lateMs }, "schedule fire claimed; running it");
    // Read after the claim: a copy read earlier may predate a peer's settlement of the previous fire.
    const task = await this.store.get(taskId);
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
      if (error !== undefined && this.stopping.signal.aborted) {
        this.log("info", { event: "fire-interrupted", taskId, runAt }, "replica stopping inside a fire; left running for a peer to requeue");
        return;
      }
      outcome = error === undefined ? { kind: "succeeded", startedAt, caughtUp: plan === "catch-up" } : { kind: "failed", startedAt, error };
    }
    const settlement = settleFire(task, { runAt, outcome, now: Date.now() }, this.retryBackoff);
    const settled = await this.store.settleScheduledRun(taskId, runAt, settlement);
    this.logSettlement(taskId, runAt, outcome, settlement, settled);
    this.observer.scheduleFired?.({ taskType, outcome: outcome.kind });
    await this.notify(taskId);
    await this.handleScheduleChanged(taskId);
  }

  /** Runs the handler while heartbeating the claim; resolves to the failure message, if any. */
  private async runHandler(handler: ScheduleHandler, task: ScheduledTaskDefinition, runAt: number): Promise<string | undefined> {
    const heartbeat = setInterval(() => {
      this.store.heartbeatScheduledRun(task.taskId).catch((err: unknown) => {
        this.log("warn", { event: "heartbeat-failed", taskId: task.taskId, err }, "schedule heartbeat failed");
      });
    }, this.heartbeatIntervalMs);
    heartbeat.unref();
    try {
      await handler({ task, scheduledAt: runAt, replicaId: this.replicaId, signal: this.stopping.signal });
      return undefined;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log("warn", { event: "handler-failed", taskId: task.taskId, runAt, err: error }, "schedule handler failed");
      return message || "handler failed";
    } finally {
      clearInterval(heartbeat);
    }
  }

  private logSettlement(taskId: string, runAt: number, outcome: FireOutcome, settlement: ScheduledRunSettlement, settled: boolean): void {
    const fields = { taskId, runAt, outcome: outcome.kind, status: settlement.status, retryCount: settlement.retryCount, settled };
    if (!settled) {
      // A peer requeued and re-ran this fire while this replica looked dead: its outcome stands.
      this.log("warn", { event: "fire-superseded", ...fields }, "schedule fire finished after it was requeued; outcome not recorded");
    } else if (outcome.kind !== "failed") {
      this.log("info", { event: "fire-settled", ...fields }, "schedule fire settled");
    } else if (settlement.status === ScheduledTaskStatus.FAILED) {
      this.log("error", { event: "fire-failed", ...fields, error: outcome.error }, "schedule fire failed and has no retries left; the schedule failed");
    } else {
      const retryAt = settlement.nextRunAt ?? settlement.executeAt;
      this.log("warn", { event: "fire-retry", ...fields, retryAt, error: outcome.error }, "schedule fire failed; retrying");
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

  /** Keeps a fire's promise for `stop()`; a store failure is logged and the task looked at again later. */
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
    this.logger[level]({ phase: "schedule", ...fields }, message);
  }
}
