import type { ErrorCode } from "@axiom-lattice/protocols";

// The queue's types are declared in @axiom-lattice/protocols (so the shared contract suite can name
// them) and re-exported here under their usual names, beside the errors every implementation throws.
export type {
  AddMessageParams,
  ClaimMessagesOptions,
  CompletedAndClaimed,
  FinishedRunStatus,
  MessageQueueStore,
  PendingMessage,
  QueueScope,
  QueuedMessageStatus,
  RunOutcome,
  RunStatus,
  TakenBackAndClaimed,
  ThreadInfo,
  ThreadQueueRef,
} from "@axiom-lattice/protocols";

/** The `error` of a run record completed as `aborted`, wherever the abort was applied. */
export const ABORTED_RUN_ERROR = "Run aborted";

/** Whose queued messages reached their bound: the thread's, or its tenant's on all its threads. */
export type QueueBound = "thread" | "tenant";

/** The thread (or its tenant) already holds as many queued messages as it may. */
export class QueueFullError extends Error {
  readonly code = "QUEUE_FULL" satisfies ErrorCode;

  constructor(
    readonly threadId: string,
    readonly capacity: number,
    readonly bound: QueueBound = "thread",
  ) {
    super(bound === "thread" ? `Thread ${threadId} already has ${capacity} queued messages` : `The tenant already has ${capacity} queued messages`);
    this.name = "QueueFullError";
  }
}

/**
 * An add with `requireTarget` found no such assistant in the tenant, or no such thread of it: the
 * message of a run request's 404, as reading the target first would answer it.
 */
export class RunTargetNotFoundError extends Error {
  readonly code = "NOT_FOUND" satisfies ErrorCode;

  constructor(
    readonly missing: "assistant" | "thread",
    readonly assistantId: string,
    readonly threadId: string,
  ) {
    super(missing === "assistant" ? `Assistant ${assistantId} not found` : `Thread ${threadId} not found for assistant ${assistantId}`);
    this.name = "RunTargetNotFoundError";
  }
}

/** The tenant already has a message with this id (another tenant's ids never conflict). */
export class DuplicateMessageError extends Error {
  readonly code = "DUPLICATE_MESSAGE" satisfies ErrorCode;

  constructor(readonly messageId: string) {
    super(`A message with id ${messageId} already exists`);
    this.name = "DuplicateMessageError";
  }
}
