import { ScheduleExecutionType, type ScheduledTaskDefinition } from "@axiom-lattice/protocols";

/** The scheduled time of the task's current fire: with the task id, it identifies the fire. */
export function scheduledRunAt(task: Pick<ScheduledTaskDefinition, "executionType" | "executeAt" | "nextRunAt">): number | undefined {
  return task.executionType === ScheduleExecutionType.CRON ? task.nextRunAt : task.executeAt;
}
