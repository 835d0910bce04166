export { InMemoryScheduleStore } from "./inMemoryScheduleStore";
export {
  DefaultScheduleClient,
  type RestoreResult,
  type ScheduleClientOptions,
  type ScheduleFire,
  type ScheduleHandler,
} from "./scheduleClient";
export { scheduleFieldRules, type CronScheduleChange, type ScheduleCronInput, type ScheduleOnceInput } from "./scheduleRequest";
export type { RetryBackoffOptions } from "./scheduleSettlement";
export {
  validateAgeThreshold,
  validateClaim,
  validateNewScheduledTask,
  validateScheduledTaskUpdate,
  validateSettlement,
  validateStatus,
  validateTenantFilter,
} from "./scheduleStoreArguments";
export {
  DuplicateScheduleError,
  ScheduleNotFoundError,
  ScheduleRequestError,
  ScheduleStateError,
  type ScheduleRequestErrorCode,
} from "./scheduleErrors";
