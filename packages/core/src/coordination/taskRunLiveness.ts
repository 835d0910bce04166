import type { LeaseStore } from "@axiom-lattice/protocols";
import type { Logger } from "../logging/logger";
import { type ThreadRunScope, threadRunLeaseKey } from "./threadRun";

export interface TaskRunRef {
  taskId: string;
  /** The thread the task runs on, when known. */
  thread?: ThreadRunScope;
}

/** Answers "does any replica still run this task?". */
export type TaskRunLiveness = (task: TaskRunRef) => Promise<boolean>;

export function taskRunLeaseKey(taskId: string): string {
  return `task-run:${encodeURIComponent(taskId)}`;
}

/**
 * A liveness probe backed by leases: live while `task-run:<taskId>` or the task's thread-run lease is
 * held. A store error answers live, so a run that might still be going is never treated as an orphan.
 */
export function createTaskRunLiveness({ store, logger }: { store: LeaseStore; logger: Logger }): TaskRunLiveness {
  return async ({ taskId, thread }) => {
    try {
      if (await store.get(taskRunLeaseKey(taskId))) return true;
      return thread ? (await store.get(threadRunLeaseKey(thread))) !== null : false;
    } catch (error) {
      logger.warn({ phase: "liveness", taskId, err: error }, "liveness probe failed; treating the task as live");
      return true;
    }
  };
}
