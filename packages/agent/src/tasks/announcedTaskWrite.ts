import { type TaskLifecycleNotifier, taskLifecycleEventOf } from "@axiom-lattice/core";
import type { TaskItem, TaskStore, UnitOfWork } from "@axiom-lattice/protocols";
import type { TaskRuntimeOptions } from "./taskRuntimeDeps";

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

/**
 * A status write of the task runtime, announced: in one unit of work with its event when
 * `options.announced` is set ({@link announcedTaskWrite}), else published once written.
 */
export async function writeAnnounced(options: TaskRuntimeOptions, write: (tasks: TaskStore) => Promise<TaskItem | null>): Promise<TaskItem | null> {
  if (options.announced) return announcedTaskWrite(options.announced, write);
  const written = await write(options.store);
  if (written) await options.events?.publish(taskLifecycleEventOf(written));
  return written;
}
