import type { ScheduledTaskDefinition } from "@axiom-lattice/protocols";
import { Cron } from "croner";
import { ScheduleRequestError } from "./scheduleErrors";

/** The zone a cron expression is read in when a schedule names none. */
export const DEFAULT_TIMEZONE = "UTC";

/** Fire times of a cron expression read in a time zone. */
export interface CronSchedule {
  /** The first fire strictly after `afterMs`, or `undefined` when the expression never fires again. */
  nextAfter(afterMs: number): number | undefined;
}

/** Throws `INVALID_TIMEZONE` unless `timezone` is an IANA zone this runtime knows. */
export function validateTimezone(timezone: string): void {
  try {
    // The runtime's own time-zone database decides: what it accepts, croner can compute in.
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
  } catch {
    throw new ScheduleRequestError("INVALID_TIMEZONE", `Unknown time zone "${timezone}" (use an IANA name such as "Europe/Berlin")`);
  }
}

/**
 * Parses a 5-field (minute precision) or 6-field (seconds first) cron expression in `timezone`.
 * Day-of-month and day-of-week combine with OR, as in Vixie cron. Across DST changes a wall-clock
 * time that does not exist fires when the gap ends, and one that occurs twice fires once.
 */
export function parseCron(expression: string, timezone: string): CronSchedule {
  validateTimezone(timezone);
  let cron: Cron;
  try {
    cron = new Cron(expression, { timezone, mode: "5-or-6-parts", paused: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, "") : String(error);
    throw new ScheduleRequestError("INVALID_CRON", `Invalid cron expression "${expression}": ${reason}`);
  }
  return {
    nextAfter(afterMs) {
      return cron.nextRun(new Date(afterMs))?.getTime();
    },
  };
}

/** The cron task's first fire strictly after `afterMs`, or `undefined` when it never fires again. */
export function nextCronRunAt(task: Pick<ScheduledTaskDefinition, "cronExpression" | "timezone">, afterMs: number): number | undefined {
  return parseCron(task.cronExpression ?? "", task.timezone ?? DEFAULT_TIMEZONE).nextAfter(afterMs);
}
