export { MemoryScheduleStorage } from "./memoryScheduleStorage";
export {
  DefaultScheduleClient,
  type RestoreResult,
  type ScheduleClientOptions,
  type ScheduleCronInput,
  type ScheduleFire,
  type ScheduleHandler,
  type ScheduleOnceInput,
} from "./scheduleClient";
export type { RetryBackoffOptions } from "./scheduleSettlement";
export {
  validateAgeThreshold,
  validateClaim,
  validateNewScheduledTask,
  validateScheduledTaskUpdate,
  validateSettlement,
  validateStatus,
  validateTenantFilter,
} from "./scheduleArguments";
export {
  DuplicateScheduleError,
  ScheduleNotFoundError,
  ScheduleRequestError,
  ScheduleStateError,
  type ScheduleRequestErrorCode,
} from "./scheduleErrors";
