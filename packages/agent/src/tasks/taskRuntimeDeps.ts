import { type ProjectTaskExecutionMutex, type ProjectTaskScope, taskLifecycleEventOf } from "@axiom-lattice/core";
import type { TaskItem, TaskLifecycleEvent, TaskStore } from "@axiom-lattice/protocols";
import { type AnnouncedTaskWriteDeps, announcedTaskWrite } from "./announcedTaskWrite";

/** What the agent runtime needs to run tasks: delegation (the `task` tool) and settling task runs. */
export interface TaskRuntimeOptions {
  store: TaskStore;
  /** Hears every status change the runtime makes (the gateway's lifecycle notifier: local + outbox). */
  events?: { publish(event: TaskLifecycleEvent): Promise<void> };
  /**
   * Commits each status write of the runtime (a run's end, a resume) with its lifecycle event, so
   * peers never hear of one without the other; `events` then announces nothing of those writes.
   */
  announced?: AnnouncedTaskWriteDeps;
  /**
   * Serialises the writes to project tasks per project task machine; its lease's fencing token guards
   * them. Without it, project tasks are written like any other.
   */
  machine?: ProjectTaskExecutionMutex;
  /** How long a write waits for a project task's machine (default: the machine's own acquire timeout). */
  machineWaitMs?: number;
}

/** A task governed by a project task machine: an agent's task in a project. */
export const isProjectTask = (task: Pick<TaskItem, "projectId" | "ownerType">): task is TaskItem & { projectId: string } =>
  task.projectId !== undefined && task.ownerType === "agent";

/** The machine that governs a project task. */
export const projectTaskScopeOf = (task: TaskItem & { projectId: string }): ProjectTaskScope => ({
  tenantId: task.tenantId,
  assistantId: task.ownerId,
  projectId: task.projectId,
});

/**
 * Runs a write to `task`: for a project task inside its machine's exclusive section, passing the
 * section's fencing token, so a replica that lost the machine cannot overwrite its successor.
 */
export function writeTask<T>(options: TaskRuntimeOptions, task: TaskItem, write: (fencingToken: string | undefined) => Promise<T>): Promise<T> {
  if (!options.machine || !isProjectTask(task)) return write(undefined);
  return options.machine.runExclusive(projectTaskScopeOf(task), ({ fencingToken }) => write(fencingToken), { acquireTimeoutMs: options.machineWaitMs });
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
