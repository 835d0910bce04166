import type { FinishedRunStatus } from "@axiom-lattice/protocols";

/** How a claimed schedule fire ended (see `FireOutcome`). */
export type ScheduleFireOutcome = "succeeded" | "failed" | "skipped";

/** What became of an outbox event a poller passed. */
export type OutboxDeliveryOutcome = "delivered" | "failed" | "skipped_own" | "ignored";

/** Why a run stopped on this replica without an outcome (its message goes back to the queue). */
export type RunHandOverReason = "lease_lost" | "claim_lost" | "shutdown" | "settlement_failed" | "database_unavailable";

/**
 * Moments worth counting, reported by the runtime, the scheduler and the outbox poller to whoever
 * measures them (the gateway's Prometheus metrics). Every method is optional, and every component
 * takes no observer by default; an observer must not throw and must return quickly.
 */
/** A run that reached an outcome on this replica: which one, how, and `durationMs` after its message was claimed. */
export interface RunFinishedEvent {
  messageId: string;
  tenantId: string;
  assistantId: string;
  threadId: string;
  status: FinishedRunStatus;
  durationMs: number;
}

export interface LatticeObserver {
  /** A run reached an outcome on this replica. */
  runFinished?(event: RunFinishedEvent): void;
  /** A run stopped here unfinished; a holder of the thread runs its message again. */
  runHandedOver?(event: { reason: RunHandOverReason }): void;
  /** A run produced its first chunk, `delayMs` after its message was claimed. */
  runFirstChunk?(event: { delayMs: number }): void;
  /** This replica claimed a queued message to run it. */
  queueClaimed?(): void;
  /** This replica took back `count` messages an earlier holder of the thread had claimed and left. */
  queueReclaimed?(event: { count: number }): void;
  /** The outbox poller passed an event. */
  outboxEventPassed?(event: { topic: string; outcome: OutboxDeliveryOutcome }): void;
  /** This replica ran (or skipped) a schedule fire it claimed. */
  scheduleFired?(event: { taskType: string; outcome: ScheduleFireOutcome }): void;
  /** A peer claimed a fire this replica's timer was also due for. */
  scheduleClaimLost?(event: { taskType: string }): void;
}

/** Observes nothing: the default of every component that takes an observer. */
export const NO_OBSERVER: LatticeObserver = Object.freeze({});
