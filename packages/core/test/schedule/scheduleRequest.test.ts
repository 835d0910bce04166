import { JSON_DEPTH_BOUND, nestedObject } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import {
  type ScheduleCronInput,
  type ScheduleOnceInput,
  type ScheduleRequestContext,
  parseScheduleCronInput,
  parseScheduleOnceInput,
} from "../../src/schedule/scheduleRequest";

const NOW = Date.UTC(2031, 0, 1, 8, 0, 0);
const context: ScheduleRequestContext = { now: NOW, isKnownTaskType: (taskType) => taskType === "record" };

describe("parseScheduleOnceInput", () => {
  it("fills in the defaults and counts a delay from now", () => {
    expect(parseScheduleOnceInput({ taskType: "record", delayMs: 90_000 }, context)).toEqual({
      taskId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: "default",
      taskType: "record",
      payload: {},
      executionType: "once",
      executeAt: NOW + 90_000,
      catchUp: "once",
      status: "pending",
      runCount: 0,
      retryCount: 0,
      maxRetries: 3,
      assistantId: undefined,
      threadId: undefined,
    });
  });

  it("keeps what the request gives, and takes executeAt as a Date or epoch ms", () => {
    const given = { taskType: "record", taskId: "mine", tenantId: "acme", payload: { a: 1 }, maxRetries: 0, catchUp: "skip", assistantId: "a", threadId: "t" } as const;
    for (const executeAt of [NOW + 5_000, new Date(NOW + 5_000)]) {
      expect(parseScheduleOnceInput({ ...given, executeAt }, context)).toMatchObject({ ...given, executeAt: NOW + 5_000 });
    }
  });

  it("takes an executeAt up to 5 s in the past as now (clock skew, request latency), whatever the catch-up policy", () => {
    for (const catchUp of ["once", "skip"] as const) {
      expect(parseScheduleOnceInput({ taskType: "record", executeAt: NOW - 5_000, catchUp }, context)).toMatchObject({ executeAt: NOW - 5_000 });
    }
  });

  it("refuses an executeAt further in the past whatever the catch-up policy, pointing to a delay of 0", () => {
    for (const catchUp of ["once", "skip", undefined] as const) {
      expect(() => parseScheduleOnceInput({ taskType: "record", executeAt: NOW - 5_001, catchUp }, context)).toThrow(
        expect.objectContaining({ code: "EXECUTE_AT_IN_PAST", message: expect.stringContaining("a delay of 0 fires now") }),
      );
    }
  });

  it.each<[string, ScheduleOnceInput, string]>([
    ["an unknown task type", { taskType: "nope", delayMs: 1 }, "UNKNOWN_TASK_TYPE"],
    ["an unknown task type, before a timing problem", { taskType: "nope" }, "UNKNOWN_TASK_TYPE"],
    ["both executeAt and delayMs", { taskType: "record", delayMs: 1, executeAt: NOW + 1 }, "INVALID_SCHEDULE"],
    ["neither executeAt nor delayMs", { taskType: "record" }, "INVALID_SCHEDULE"],
    ["a negative delay", { taskType: "record", delayMs: -1 }, "INVALID_SCHEDULE"],
    ["an infinite delay", { taskType: "record", delayMs: Number.POSITIVE_INFINITY }, "INVALID_SCHEDULE"],
    ["a NaN executeAt", { taskType: "record", executeAt: Number.NaN }, "INVALID_SCHEDULE"],
    ["an invalid Date", { taskType: "record", executeAt: new Date("tomorrow") }, "INVALID_SCHEDULE"],
    ["an executeAt an hour ago", { taskType: "record", executeAt: NOW - 3_600_000 }, "EXECUTE_AT_IN_PAST"],
    ["a negative maxRetries", { taskType: "record", delayMs: 1, maxRetries: -1 }, "INVALID_SCHEDULE"],
    ["a fractional maxRetries", { taskType: "record", delayMs: 1, maxRetries: 1.5 }, "INVALID_SCHEDULE"],
    ["an unknown catch-up policy", { taskType: "record", delayMs: 1, catchUp: "all" as never }, "INVALID_SCHEDULE"],
    ["an array payload", { taskType: "record", delayMs: 1, payload: [] as never }, "INVALID_SCHEDULE"],
    ["a payload nested too deep", { taskType: "record", delayMs: 1, payload: nestedObject(JSON_DEPTH_BOUND + 1) }, "INVALID_SCHEDULE"],
  ])("refuses %s", (_label, input, code) => {
    expect(() => parseScheduleOnceInput(input, context)).toThrow(expect.objectContaining({ name: "ScheduleRequestError", code }));
  });
});

describe("parseScheduleCronInput", () => {
  it("reads the expression in UTC unless told otherwise; the first fire comes after now", () => {
    expect(parseScheduleCronInput({ taskType: "record", cronExpression: "*/15 * * * *", maxRuns: 2 }, context)).toMatchObject({
      executionType: "cron",
      cronExpression: "*/15 * * * *",
      timezone: "UTC",
      nextRunAt: NOW + 15 * 60_000,
      maxRuns: 2,
      status: "pending",
    });
    expect(parseScheduleCronInput({ taskType: "record", cronExpression: "0 9 * * *", timezone: "Europe/Berlin" }, context)).toMatchObject({
      timezone: "Europe/Berlin",
      nextRunAt: Date.UTC(2031, 0, 2, 8, 0, 0), // 09:00 Berlin: now is 09:00 there, so tomorrow
    });
  });

  it.each<[string, Omit<ScheduleCronInput, "taskType"> & { taskType?: string }, string]>([
    ["an invalid expression", { cronExpression: "61 * * * *" }, "INVALID_CRON"],
    ["an expression that never fires", { cronExpression: "0 0 30 2 *" }, "INVALID_CRON"],
    ["an unknown time zone", { cronExpression: "0 9 * * *", timezone: "Mars/Base" }, "INVALID_TIMEZONE"],
    ["a zero maxRuns", { cronExpression: "0 9 * * *", maxRuns: 0 }, "INVALID_SCHEDULE"],
    ["a fractional maxRuns", { cronExpression: "0 9 * * *", maxRuns: 2.5 }, "INVALID_SCHEDULE"],
    ["an unknown task type, before an invalid expression", { taskType: "nope", cronExpression: "61 * * * *" }, "UNKNOWN_TASK_TYPE"],
  ])("refuses %s", (_label, input, code) => {
    expect(() => parseScheduleCronInput({ taskType: "record", ...input }, context)).toThrow(expect.objectContaining({ name: "ScheduleRequestError", code }));
  });
});
