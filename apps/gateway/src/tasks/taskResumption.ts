import { type TaskMessageDeps, type TaskRuntimeOptions, resumeTaskRun, taskRunThreadOf } from "@axiom-lattice/agent";
import type { TaskLifecycleNotifier } from "@axiom-lattice/core";
import { type TaskItem, TaskStatus } from "@axiom-lattice/protocols";
import { HttpError } from "../http/errors";
import { answeringMachineBusy, requestTaskWrites } from "./taskMachineWait";

export interface TaskResumptionDeps {
  tasks: TaskRuntimeOptions;
  /** Queues and wakes the resume run. */
  runs: TaskMessageDeps;
  lifecycle: TaskLifecycleNotifier;
}

/**
 * Answers the question an `interrupted` task's run asked: the resume becomes the task's current run
 * (see {@link resumeTaskRun}), whose end settles the task like a start run. A delegating caller
 * already resumed with `interrupted` is not resumed again.
 */
export async function resumeTask({ tasks, runs, lifecycle }: TaskResumptionDeps, tenantId: string, taskId: string, value: unknown): Promise<TaskItem> {
  const found = await tasks.store.getTask(tenantId, taskId);
  if (!found) throw new HttpError("NOT_FOUND", `Task ${taskId} not found`);
  if (found.status !== TaskStatus.INTERRUPTED || !taskRunThreadOf(found)) {
    throw new HttpError("INVALID_TASK_STATE", `Task ${taskId} is ${found.status}; only an interrupted task that ran can be resumed`);
  }
  const resumed = await answeringMachineBusy(taskId, () => resumeTaskRun({ ...runs, tasks: requestTaskWrites({ ...tasks, events: lifecycle }) }, found, value));
  if (!resumed) throw new HttpError("INVALID_TASK_STATE", `Task ${taskId} changed while it was being resumed (resumed or cancelled meanwhile); read it again`);
  return resumed;
}
