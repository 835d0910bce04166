import type { ScheduledRunSettlement, ScheduledTaskDefinition } from "@axiom-lattice/protocols";
import { describe, expect, it } from "vitest";
import { type FireOutcome, type FirePlan, planFire, retryDelayMs, settleFire } from "../../src/schedule/scheduleSettlement";
import { scheduledRunAt } from "../../src/schedule/scheduledRunAt";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
// The fire being settled is scheduled at T (09:00 UTC); the cron tasks fire hourly.
const T = Date.UTC(2031, 0, 1, 9, 0, 0);

function task(fields: Partial<ScheduledTaskDefinition>): ScheduledTaskDefinition {
  return {
    taskId: "task",
    tenantId: "tenant",
    taskType: "record",
    payload: {},
    executionType: "once",
    catchUp: "once",
    status: "running",
    runCount: 0,
    retryCount: 0,
    maxRetries: 3,
    createdAt: T - HOUR,
    updatedAt: T,
    ...fields,
  };
}
const once = (fields: Partial<ScheduledTaskDefinition> = {}) => task({ executionType: "once", executeAt: T, ...fields });
const cron = (fields: Partial<ScheduledTaskDefinition> = {}) =>
  task({ executionType: "cron", cronExpression: "0 * * * *", timezone: "UTC", nextRunAt: T, ...fields });

const succeeded = (startedAt = T): FireOutcome => ({ kind: "succeeded", startedAt, caughtUp: false });
const caughtUp = (startedAt: number): FireOutcome => ({ kind: "succeeded", startedAt, caughtUp: true });
const failed = (startedAt = T): FireOutcome => ({ kind: "failed", startedAt, error: "boom" });
const skipped: FireOutcome = { kind: "skipped" };

const done = (fields: Omit<ScheduledRunSettlement, "status">): ScheduledRunSettlement => ({ status: "completed", ...fields });
const pending = (fields: Omit<ScheduledRunSettlement, "status">): ScheduledRunSettlement => ({ status: "pending", ...fields });
const failedFor = (fields: Omit<ScheduledRunSettlement, "status">): ScheduledRunSettlement => ({ status: "failed", ...fields });

describe("settleFire: (task, outcome, now) → the task's next state", () => {
  it.each<[string, ScheduledTaskDefinition, FireOutcome, number, ScheduledRunSettlement]>([
    // One-shot schedules.
    ["a one-shot that succeeds is completed with one run", once(), succeeded(), T + SECOND, done({ runCount: 1, retryCount: 0, lastRunAt: T })],
    ["a one-shot that succeeds on a retry is completed, retries reset", once({ retryCount: 2, executeAt: T }), succeeded(), T + SECOND, done({ runCount: 1, retryCount: 0, lastRunAt: T })],
    ["a failed one-shot with retries left is retried 1 s after now", once(), failed(), T + 2 * SECOND, pending({ runCount: 0, retryCount: 1, executeAt: T + 3 * SECOND, lastRunAt: T, lastError: "boom" })],
    ["the third attempt of a one-shot waits 4 s (the delay doubles)", once({ retryCount: 2 }), failed(), T, pending({ runCount: 0, retryCount: 3, executeAt: T + 4 * SECOND, lastRunAt: T, lastError: "boom" })],
    ["a retry never waits longer than 5 min", once({ retryCount: 9, maxRetries: 20 }), failed(), T, pending({ runCount: 0, retryCount: 10, executeAt: T + 5 * MINUTE, lastRunAt: T, lastError: "boom" })],
    ["a one-shot failing with its retries used up fails", once({ retryCount: 3, maxRetries: 3 }), failed(), T, failedFor({ runCount: 0, retryCount: 3, lastRunAt: T, lastError: "boom" })],
    ["with maxRetries 0 the first failure fails", once({ maxRetries: 0 }), failed(), T, failedFor({ runCount: 0, retryCount: 0, lastRunAt: T, lastError: "boom" })],
    // Cron schedules.
    ["a cron fire that succeeds moves to the next fire after its scheduled time", cron(), succeeded(), T + 30 * SECOND, pending({ runCount: 1, retryCount: 0, lastRunAt: T, nextRunAt: T + HOUR })],
    ["a run that outlasted the next fire time still continues from its scheduled time", cron(), succeeded(), T + 90 * MINUTE, pending({ runCount: 1, retryCount: 0, lastRunAt: T, nextRunAt: T + HOUR })],
    ["a cron fire that succeeds on a retry returns to the regular fires", cron({ nextRunAt: T + 5 * SECOND, retryCount: 1 }), succeeded(T + 5 * SECOND), T + 6 * SECOND, pending({ runCount: 1, retryCount: 0, lastRunAt: T + 5 * SECOND, nextRunAt: T + HOUR })],
    ["a cron schedule below maxRuns continues", cron({ runCount: 1, maxRuns: 3 }), succeeded(), T, pending({ runCount: 2, retryCount: 0, lastRunAt: T, nextRunAt: T + HOUR })],
    ["a cron schedule reaching maxRuns is completed", cron({ runCount: 2, maxRuns: 3 }), succeeded(), T, done({ runCount: 3, retryCount: 0, lastRunAt: T })],
    ["a cron expression with no further fire completes the schedule", cron({ cronExpression: "0 0 30 2 *" }), succeeded(), T, done({ runCount: 1, retryCount: 0, lastRunAt: T })],
    ["the next fire is read in the schedule's time zone", cron({ cronExpression: "0 9 * * *", timezone: "Europe/Berlin" }), succeeded(), T, pending({ runCount: 1, retryCount: 0, lastRunAt: T, nextRunAt: Date.UTC(2031, 0, 2, 8) })],
    ["a failed cron fire with retries left is retried in place of the next fire", cron({ runCount: 4 }), failed(), T + 2 * SECOND, pending({ runCount: 4, retryCount: 1, nextRunAt: T + 3 * SECOND, lastRunAt: T, lastError: "boom" })],
    ["a cron schedule failing with its retries used up fails", cron({ runCount: 4, retryCount: 3 }), failed(), T, failedFor({ runCount: 4, retryCount: 3, lastRunAt: T, lastError: "boom" })],
    // Fires missed while no replica ran (catch-up policy `once` runs them once, `skip` does not).
    ["a caught-up cron fire continues from now, not from the missed backlog", cron(), caughtUp(T + 62 * MINUTE), T + 62 * MINUTE, pending({ runCount: 1, retryCount: 0, lastRunAt: T + 62 * MINUTE, nextRunAt: T + 2 * HOUR })],
    ["a skipped cron fire moves past now without counting a run, retries reset", cron({ catchUp: "skip", runCount: 4, retryCount: 2 }), skipped, T + 62 * MINUTE, pending({ runCount: 4, retryCount: 0, nextRunAt: T + 2 * HOUR })],
    ["a skipped one-shot is completed without a run", once({ catchUp: "skip", retryCount: 1 }), skipped, T + 62 * MINUTE, done({ runCount: 0, retryCount: 1 })],
  ])("%s", (_label, before, outcome, now, expected) => {
    expect(settleFire(before, { runAt: scheduledRunAt(before)!, outcome, now })).toEqual(expected);
  });
});

describe("planFire: (catch-up policy, lateness) → how the claimed fire is handled", () => {
  const GRACE = MINUTE;
  it.each<[string, "once" | "skip", number, FirePlan]>([
    ["on time", "once", 0, "run"],
    ["late within the grace", "skip", GRACE, "run"],
    ["missed, catch-up once", "once", GRACE + 1, "catch-up"],
    ["missed, catch-up skip", "skip", GRACE + 1, "skip"],
  ])("%s (catch-up %s, %i ms late)", (_label, catchUp, lateMs, plan) => {
    expect(planFire({ catchUp }, lateMs, GRACE)).toBe(plan);
  });
});

describe("retryDelayMs: exponential from the base, capped", () => {
  it.each([
    [0, {}, SECOND],
    [1, {}, 2 * SECOND],
    [3, {}, 8 * SECOND],
    [30, {}, 5 * MINUTE],
    [2, { baseMs: 100 }, 400],
    [3, { baseMs: 100, maxMs: 500 }, 500],
  ])("retry %i with %o waits %i ms", (retryCount, options, delay) => {
    expect(retryDelayMs(retryCount, options)).toBe(delay);
  });
});
