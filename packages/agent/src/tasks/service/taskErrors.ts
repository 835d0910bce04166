import type { ErrorCode } from "@axiom-lattice/protocols";

/** What the task service refuses, each a code of the API's union (the gateway maps codes to statuses). */
export type TaskErrorCode = Extract<ErrorCode, "NOT_FOUND" | "INVALID_TASK_STATE" | "TASK_NOT_DISPATCHABLE" | "NOT_A_PROJECT_MEMBER" | "TASK_BUSY" | "TASK_MACHINE_BUSY">;

/** A request to the task service that it refused; nothing was written. */
export class TaskError extends Error {
  constructor(
    readonly code: TaskErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "TaskError";
  }
}
