import { ScheduleExecutionType, type ScheduledTaskDefinition } from "@axiom-lattice/protocols";

type Timing = Pick<ScheduledTaskDefinition, "executionType" | "executeAt" | "nextRunAt">;

export const isCronTask = (task: Pick<ScheduledTaskDefinition, "executionType">): boolean => task.executionType === ScheduleExecutionType.CRON;

/** The scheduled time of the task's current fire: with the task id, it identifies the fire. */
export function scheduledRunAt(task: Timing): number | undefined {
  return isCronTask(task) ? task.nextRunAt : task.executeAt;
}

/** The fields that move the task's current fire to `runAt` (a retry keeps the task's kind of fire time). */
export function scheduledRunAtUpdate(task: Pick<ScheduledTaskDefinition, "executionType">, runAt: number): Pick<Timing, "executeAt" | "nextRunAt"> {
  return isCronTask(task) ? { nextRunAt: runAt } : { executeAt: runAt };
}
