import { ScheduledTaskStatus, type ScheduledRunSettlement, type ScheduledTaskDefinition } from "@axiom-lattice/protocols";
import { nextCronRunAt } from "./cronSchedule";
import { isCronTask, scheduledRunAtUpdate } from "./scheduledRunAt";
import { SCHEDULE_RETRY_BASE_MS, SCHEDULE_RETRY_MAX_MS } from "../defaults";

// What a claimed fire does to its task. Pure: the caller reads the clock and passes `now`.

export interface RetryBackoffOptions {
  /** Delay before the first retry (default 1 s); each further retry doubles it. */
  baseMs?: number;
  /** Upper bound of any retry delay (default 5 min). */
  maxMs?: number;
}

/**
 * How a claimed fire is handled: `run` on time; `catch-up`, a missed fire (claimed later than the
 * grace after its time) run once for every fire missed with it; `skip`, a missed fire not run.
 */
export type FirePlan = "run" | "catch-up" | "skip";

/** What came of a claimed fire. */
export type FireOutcome =
  // Planned `skip`: the handler did not run.
  | { kind: "skipped" }
  // The handler ran to completion; `caughtUp` when it ran a missed fire (planned `catch-up`).
  | { kind: "succeeded"; startedAt: number; caughtUp: boolean }
  | { kind: "failed"; startedAt: number; error: string };

export interface SettledFire {
  /** The fire's scheduled time. */
  runAt: number;
  outcome: FireOutcome;
  /** When the fire is settled: a retry, a skipped or a caught-up fire count from it. */
  now: number;
}

/** The plan for a fire claimed `lateMs` after its scheduled time. */
export function planFire(task: Pick<ScheduledTaskDefinition, "catchUp">, lateMs: number, missedFireGraceMs: number): FirePlan {
  if (lateMs <= missedFireGraceMs) return "run";
  return task.catchUp === "skip" ? "skip" : "catch-up";
}

/** Delay before retry number `retryCount + 1`: exponential from `baseMs`, capped at `maxMs`. */
export function retryDelayMs(retryCount: number, { baseMs = SCHEDULE_RETRY_BASE_MS, maxMs = SCHEDULE_RETRY_MAX_MS }: RetryBackoffOptions = {}): number {
  return Math.min(maxMs, baseMs * 2 ** retryCount);
}

/**
 * The task's state after a fire: a success counts a run, then completes a one-shot or a cron task at
 * `maxRuns`, or moves a cron task to its next fire; a failure is retried with backoff while retries
 * remain, else fails the task; a skipped fire completes a one-shot and moves a cron task past now.
 */
export function settleFire(task: ScheduledTaskDefinition, { runAt, outcome, now }: SettledFire, backoff?: RetryBackoffOptions): ScheduledRunSettlement {
  switch (outcome.kind) {
    case "skipped":
      return isCronTask(task)
        ? nextFire(task, now, { runCount: task.runCount, retryCount: 0 })
        : { status: ScheduledTaskStatus.COMPLETED, runCount: task.runCount, retryCount: task.retryCount };
    case "failed": {
      const attempt = { runCount: task.runCount, lastRunAt: outcome.startedAt, lastError: outcome.error };
      if (task.retryCount >= task.maxRetries) return { status: ScheduledTaskStatus.FAILED, retryCount: task.retryCount, ...attempt };
      const retryAt = now + retryDelayMs(task.retryCount, backoff);
      return { status: ScheduledTaskStatus.PENDING, retryCount: task.retryCount + 1, ...attempt, ...scheduledRunAtUpdate(task, retryAt) };
    }
    case "succeeded": {
      const run = { runCount: task.runCount + 1, retryCount: 0, lastRunAt: outcome.startedAt };
      if (!isCronTask(task) || (task.maxRuns !== undefined && run.runCount >= task.maxRuns)) {
        return { status: ScheduledTaskStatus.COMPLETED, ...run };
      }
      // A caught-up fire stood in for every fire missed with it: continue from now, not from the backlog.
      return nextFire(task, outcome.caughtUp ? now : runAt, run);
    }
  }
}

function nextFire(
  task: ScheduledTaskDefinition,
  afterMs: number,
  counts: Pick<ScheduledRunSettlement, "runCount" | "retryCount" | "lastRunAt">,
): ScheduledRunSettlement {
  const nextRunAt = nextCronRunAt(task, afterMs);
  return nextRunAt === undefined
    ? { status: ScheduledTaskStatus.COMPLETED, ...counts }
    : { status: ScheduledTaskStatus.PENDING, nextRunAt, ...counts };
}
