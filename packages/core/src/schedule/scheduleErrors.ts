import type { ErrorCode } from "@axiom-lattice/protocols";
import { RecordExistsError } from "../stores/recordExistsError";

/** `save` was given a `taskId` that is already stored; nothing was written. */
export class DuplicateScheduleError extends RecordExistsError {
  constructor(
    readonly taskId: string,
    tenantId: string,
  ) {
    super("schedule", tenantId, taskId);
    this.name = "DuplicateScheduleError";
  }
}

/** Stable codes of a schedule request the client refuses before anything is stored. */
export type ScheduleRequestErrorCode = Extract<
  ErrorCode,
  "INVALID_CRON" | "INVALID_TIMEZONE" | "INVALID_SCHEDULE" | "EXECUTE_AT_IN_PAST" | "UNKNOWN_TASK_TYPE"
>;

/** A schedule request refused by {@link DefaultScheduleClient}; nothing was stored. */
export class ScheduleRequestError extends Error {
  constructor(
    readonly code: ScheduleRequestErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ScheduleRequestError";
  }
}

/** No schedule with that id (in that tenant). */
export class ScheduleNotFoundError extends Error {
  readonly code = "SCHEDULE_NOT_FOUND" satisfies ErrorCode;

  constructor(readonly taskId: string) {
    super(`Schedule "${taskId}" was not found`);
    this.name = "ScheduleNotFoundError";
  }
}

/** The schedule's status does not allow the operation (for example resuming a completed one). */
export class ScheduleStateError extends Error {
  readonly code = "INVALID_SCHEDULE_STATE" satisfies ErrorCode;

  constructor(
    readonly taskId: string,
    readonly status: string,
    operation: string,
  ) {
    super(`Schedule "${taskId}" is ${status} and cannot be ${operation}`);
    this.name = "ScheduleStateError";
  }
}
