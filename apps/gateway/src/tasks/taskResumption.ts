import { RESUMED_AT_KEY, RESUME_VALUE_KEY, type TaskMessageDeps, type TaskRuntimeOptions, startTaskRun, taskRunThreadOf, writeTask } from "@axiom-lattice/agent";
import { type TaskLifecycleNotifier, taskLifecycleEventOf } from "@axiom-lattice/core";
import { type TaskItem, TaskStatus } from "@axiom-lattice/protocols";
import { HttpError } from "../http/errors";

export interface TaskResumptionDeps {
  tasks: TaskRuntimeOptions;
  /** Queues and wakes the resume run. */
  runs: TaskMessageDeps;
  lifecycle: TaskLifecycleNotifier;
}

/**
 * Answers the question an `interrupted` task's run asked: compare-and-set to `in_progress` (a project
 * task under its machine, fenced), stamping the resume and its value in the task's `context` so the
 * resume run can be queued again by whoever finds it missing (the admissions sweep), then queues that
 * run (a resume command carrying the task marker, under an id fixed by the stamp). Its end settles the
 * task like a start run. A delegating caller already resumed with `interrupted` is not resumed again.
 */
export async function resumeTask({ tasks, runs, lifecycle }: TaskResumptionDeps, tenantId: string, taskId: string, value: unknown): Promise<TaskItem> {
  const { store } = tasks;
  const found = await store.getTask(tenantId, taskId);
  if (!found) throw new HttpError("NOT_FOUND", `Task ${taskId} not found`);
  if (found.status !== TaskStatus.INTERRUPTED || !taskRunThreadOf(found)) {
    throw new HttpError("INVALID_TASK_STATE", `Task ${taskId} is ${found.status}; only an interrupted task that ran can be resumed`);
  }
  const context = { ...found.context, [RESUMED_AT_KEY]: new Date().toISOString(), [RESUME_VALUE_KEY]: value ?? null };
  const resumed = await writeTask(tasks, found, (fencingToken) =>
    store.updateIfSnapshot(tenantId, taskId, found, { status: TaskStatus.IN_PROGRESS, context }, fencingToken ? { fencingToken } : undefined),
  );
  if (!resumed) throw new HttpError("INVALID_TASK_STATE", `Task ${taskId} changed while it was being resumed (resumed or cancelled meanwhile); read it again`);
  await lifecycle.publish(taskLifecycleEventOf(resumed));
  await startTaskRun(runs, resumed);
  return resumed;
}
