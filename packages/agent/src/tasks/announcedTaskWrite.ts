import { type TaskLifecycleNotifier, taskLifecycleEventOf } from "@axiom-lattice/core";
import type { TaskItem, TaskStore, UnitOfWork } from "@axiom-lattice/protocols";

export interface AnnouncedTaskWriteDeps {
  unitOfWork: UnitOfWork;
  lifecycle: TaskLifecycleNotifier;
}

/**
 * Runs `write` (a compare-and-set on the transaction's task store) and appends the lifecycle event
 * of what it wrote, in one unit of work: peers hear of the write exactly when it commits, never
 * without it. Local listeners hear it once committed. `null`, nothing announced, when `write`
 * wrote nothing.
 */
export async function announcedTaskWrite({ unitOfWork, lifecycle }: AnnouncedTaskWriteDeps, write: (tasks: TaskStore) => Promise<TaskItem | null>): Promise<TaskItem | null> {
  const written = await unitOfWork.inTransaction(async (tx) => {
    const task = await write(tx.tasks);
    if (task) await lifecycle.appendWithin(tx, taskLifecycleEventOf(task));
    return task;
  });
  if (written) await lifecycle.deliverLocally(taskLifecycleEventOf(written));
  return written;
}
