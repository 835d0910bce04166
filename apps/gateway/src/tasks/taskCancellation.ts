import { type AgentInstanceManager, type TaskMessageDeps, type TaskRuntimeOptions, resumeCaller, taskRunThreadOf, writeTask } from "@axiom-lattice/agent";
import { type TaskLifecycleNotifier, taskLifecycleEventOf } from "@axiom-lattice/core";
import { type TaskItem, TaskStatus } from "@axiom-lattice/protocols";
import { HttpError } from "../http/errors";

/** Statuses a task may be cancelled from: not ended yet, or waiting on someone. */
const CANCELLABLE: TaskStatus[] = [TaskStatus.PENDING, TaskStatus.IN_PROGRESS, TaskStatus.REVIEW, TaskStatus.INTERRUPTED];

export interface TaskCancellationDeps {
  tasks: TaskRuntimeOptions;
  agents: AgentInstanceManager;
  /** Queues and wakes task runs and caller resumes. */
  runs: TaskMessageDeps;
  lifecycle: TaskLifecycleNotifier;
}

/**
 * Cancels a task: compare-and-set to `cancelled` (a project task under its machine, fenced), then
 * announces it, drops its queued run, stops its run if this replica runs it, and resumes a delegating
 * caller with the cancellation. A run going on on a peer ends on its own; its settlement then finds
 * the task cancelled and changes nothing.
 */
export async function cancelTask({ tasks, agents, runs, lifecycle }: TaskCancellationDeps, tenantId: string, taskId: string): Promise<TaskItem> {
  const { store } = tasks;
  const found = await store.getTask(tenantId, taskId);
  if (!found) throw new HttpError("NOT_FOUND", `Task ${taskId} not found`);
  const cancelled = await writeTask(tasks, found, (fencingToken) =>
    store.updateIfStatusIn(tenantId, taskId, CANCELLABLE, { status: TaskStatus.CANCELLED, failureReason: "Cancelled by request" }, fencingToken ? { fencingToken } : undefined),
  );
  if (!cancelled) {
    const current = await store.getTask(tenantId, taskId);
    throw new HttpError("INVALID_TASK_STATE", `Task ${taskId} is ${current?.status ?? "gone"}; only a ${CANCELLABLE.join(", ")} task can be cancelled`);
  }
  await lifecycle.publish(taskLifecycleEventOf(cancelled));
  const thread = taskRunThreadOf(cancelled);
  if (thread) {
    await runs.queue.clearMessages(thread.threadId, { tenantId: thread.tenantId, assistantId: thread.assistantId });
    await agents.getAgent(thread).abort();
  }
  await resumeCaller(runs, cancelled);
  return cancelled;
}
