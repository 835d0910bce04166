import { TaskStatus, type TaskItem } from "@axiom-lattice/protocols";
import { TaskError } from "./taskErrors";

// An agent's task is moved by the task runtime (dispatch, the run's end, cancel): a client would race
// it. What is left to a client is the verdict on work the agent handed in for review.
const REVIEW_VERDICTS: readonly TaskStatus[] = [TaskStatus.COMPLETED, TaskStatus.FAILED];

/**
 * Refuses (`INVALID_TASK_STATE`) a status change a client may not make: to the status the task
 * has already (so of racing identical changes exactly one happens), or any change of an agent's task
 * but approving or rejecting its work in review. A user's task may take any other status.
 */
export function requireClientStatusChange(task: TaskItem, to: TaskStatus): void {
  if (task.status === to) throw new TaskError("INVALID_TASK_STATE", `Task ${task.id} is ${to} already`);
  if (task.ownerType === "user") return;
  if (task.status === TaskStatus.REVIEW && REVIEW_VERDICTS.includes(to)) return;
  throw new TaskError(
    "INVALID_TASK_STATE",
    `Task ${task.id} is an agent's task (${task.status}): a client may only move it from review to completed or failed; dispatch or cancel it otherwise`,
  );
}
