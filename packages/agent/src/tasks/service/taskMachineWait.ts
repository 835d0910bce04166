import { LeaseAcquireTimeoutError } from "@axiom-lattice/core";
import { TaskError } from "./taskErrors";

/**
 * Runs a request's write to a task; a machine still held after the request's wait answers
 * `TASK_MACHINE_BUSY`, nothing written, instead of holding the request.
 */
export async function answeringMachineBusy<T>(taskId: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof LeaseAcquireTimeoutError)) throw error;
    throw new TaskError("TASK_MACHINE_BUSY", `Task ${taskId}'s project task machine is busy (a pass, or a replica that stopped while holding it); nothing was written, retry shortly`);
  }
}
