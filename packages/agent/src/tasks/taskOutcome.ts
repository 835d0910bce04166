import type { TaskItem, TaskStatus } from "@axiom-lattice/protocols";

/** What a delegated task's caller resumes with: the value its `task` tool call returns. */
export interface TaskOutcome {
  taskId: string;
  status: TaskStatus;
  result?: unknown;
  failureReason?: string;
}

export function taskOutcomeOf(task: TaskItem): TaskOutcome {
  const outcome: TaskOutcome = { taskId: task.id, status: task.status };
  if (task.result !== undefined) outcome.result = task.result;
  if (task.failureReason !== undefined) outcome.failureReason = task.failureReason;
  return outcome;
}
