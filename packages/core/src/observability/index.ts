export { NO_OBSERVER, type LatticeObserver, type OutboxDeliveryOutcome, type RunFinishedEvent, type RunHandOverReason, type ScheduleFireOutcome } from "./latticeObserver";
