/** `save` was given a `taskId` that is already stored; nothing was written. */
export class DuplicateScheduleError extends Error {
  readonly code = "ALREADY_EXISTS";

  constructor(readonly taskId: string) {
    super(`A schedule with id "${taskId}" already exists`);
    this.name = "DuplicateScheduleError";
  }
}

/** Stable codes of a schedule request the client refuses before anything is stored. */
export type ScheduleRequestErrorCode =
  | "INVALID_CRON"
  | "INVALID_TIMEZONE"
  | "INVALID_SCHEDULE"
  | "EXECUTE_AT_IN_PAST"
  | "UNKNOWN_TASK_TYPE";

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
  readonly code = "SCHEDULE_NOT_FOUND";

  constructor(readonly taskId: string) {
    super(`Schedule "${taskId}" was not found`);
    this.name = "ScheduleNotFoundError";
  }
}

/** The schedule's status does not allow the operation (for example resuming a completed one). */
export class ScheduleStateError extends Error {
  readonly code = "INVALID_SCHEDULE_STATE";

  constructor(
    readonly taskId: string,
    readonly status: string,
    operation: string,
  ) {
    super(`Schedule "${taskId}" is ${status} and cannot be ${operation}`);
    this.name = "ScheduleStateError";
  }
}
