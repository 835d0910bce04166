import type { TaskRuntimeOptions } from "@axiom-lattice/agent";
import { LeaseAcquireTimeoutError } from "@axiom-lattice/core";
import { TASK_MACHINE_REQUEST_WAIT_MS } from "../defaults";
import { HttpError } from "../http/errors";

/** The task options of a request's own write: it waits for a project task's machine only briefly. */
export const requestTaskWrites = (tasks: TaskRuntimeOptions): TaskRuntimeOptions => ({ ...tasks, machineWaitMs: TASK_MACHINE_REQUEST_WAIT_MS });

/**
 * Runs a request's write to a task; a machine still held after the request's wait answers
 * `409 TASK_MACHINE_BUSY` (with `Retry-After`), nothing written, instead of holding the request.
 */
export async function answeringMachineBusy<T>(taskId: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof LeaseAcquireTimeoutError)) throw error;
    throw new HttpError("TASK_MACHINE_BUSY", `Task ${taskId}'s project task machine is busy (a pass, or a replica that stopped while holding it); nothing was written, retry shortly`);
  }
}
