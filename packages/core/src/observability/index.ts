export { NO_OBSERVER, type LatticeObserver, type OutboxDeliveryOutcome, type RunHandOverReason, type ScheduleFireOutcome } from "./latticeObserver";
