import type { TaskLifecycleNotifier } from "@axiom-lattice/core";
import { type TaskItem, TaskStatus, type UnitOfWork } from "@axiom-lattice/protocols";
import type { AgentInstanceManager } from "../../runtime/agentInstanceManager";
import type { TaskMessageDeps } from "../taskMessages";
import { resumeCaller } from "../taskResumption";
import { taskRunMessageId, taskRunThreadOf } from "../taskRunPlace";
import { type TaskRuntimeOptions, writeTask } from "../taskRuntimeDeps";
import { announcedTaskWrite } from "../announcedTaskWrite";
import { TaskError } from "./taskErrors";
import { answeringMachineBusy } from "./taskMachineWait";

/** Statuses a task may be cancelled from: not ended yet, or waiting on someone. */
const CANCELLABLE: TaskStatus[] = [TaskStatus.PENDING, TaskStatus.IN_PROGRESS, TaskStatus.REVIEW, TaskStatus.INTERRUPTED];

export interface TaskCancellationDeps {
  /** The task options of a request's own writes (a short wait for a project task's machine). */
  tasks: TaskRuntimeOptions;
  /** Commits the cancellation with its lifecycle event. */
  unitOfWork: UnitOfWork;
  agents: AgentInstanceManager;
  /** Queues and wakes task runs and caller resumes. */
  runs: TaskMessageDeps;
  lifecycle: TaskLifecycleNotifier;
}

/**
 * Cancels a task: compare-and-set to `cancelled` (a project task under its machine, fenced) committed
 * with its announcement (every replica then stops the task's run if it runs it: see
 * {@link stopRunsOfCancelledTasks}), then drops its queued run and resumes a delegating caller with
 * the cancellation.
 */
export async function cancelTask({ tasks, unitOfWork, runs, lifecycle }: Omit<TaskCancellationDeps, "agents">, tenantId: string, taskId: string): Promise<TaskItem> {
  const { store } = tasks;
  const found = await store.getTask(tenantId, taskId);
  if (!found) throw new TaskError("NOT_FOUND", `Task ${taskId} not found`);
  const cancelled = await answeringMachineBusy(taskId, () =>
    writeTask(tasks, found, (fencingToken) =>
      announcedTaskWrite({ unitOfWork, lifecycle }, (inTx) =>
        inTx.updateIfStatusIn(tenantId, taskId, CANCELLABLE, { status: TaskStatus.CANCELLED, failureReason: "Cancelled by request" }, fencingToken ? { fencingToken } : undefined),
      ),
    ),
  );
  if (!cancelled) {
    const current = await store.getTask(tenantId, taskId);
    throw new TaskError("INVALID_TASK_STATE", `Task ${taskId} is ${current?.status ?? "gone"}; only a ${CANCELLABLE.join(", ")} task can be cancelled`);
  }
  const thread = taskRunThreadOf(cancelled);
  if (thread) await runs.queue.clearMessages(thread);
  await resumeCaller({ ...runs, tasks }, cancelled);
  return cancelled;
}

/**
 * Aborts the run of every task cancelled anywhere (its lifecycle event, heard directly or from a peer
 * through the outbox), wherever it runs. The task is read again, and only the run of the cancelled
 * dispatch is aborted: a task dispatched again since runs on. Returns the unsubscribe.
 */
export function stopRunsOfCancelledTasks({ tasks, agents, lifecycle }: Pick<TaskCancellationDeps, "tasks" | "agents" | "lifecycle">): () => void {
  return lifecycle.subscribe(async (event) => {
    if (event.status !== TaskStatus.CANCELLED) return;
    const task = await tasks.store.getTask(event.tenantId, event.taskId);
    const thread = task?.status === TaskStatus.CANCELLED ? taskRunThreadOf(task) : null;
    // Every replica hears the event: each records the request (once is enough) and none waits on it.
    if (task && thread) await agents.getAgent(thread).abort(taskRunMessageId(task), { waitMs: 0 });
  });
}
