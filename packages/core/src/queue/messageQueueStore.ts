import type { ErrorCode } from "@axiom-lattice/protocols";

// The queue's types are declared in @axiom-lattice/protocols (so the shared contract suite can name
// them) and re-exported here under their usual names, beside the errors every implementation throws.
export type {
  AddMessageParams,
  ClaimMessagesOptions,
  FinishedRunStatus,
  IMessageQueueStore,
  PendingMessage,
  QueueScope,
  QueuedMessageStatus,
  RunOutcome,
  RunStatus,
  ThreadInfo,
} from "@axiom-lattice/protocols";

/** The thread already holds as many queued messages as the store allows. */
export class QueueFullError extends Error {
  readonly code = "QUEUE_FULL" satisfies ErrorCode;

  constructor(
    readonly threadId: string,
    readonly capacity: number,
  ) {
    super(`Thread ${threadId} already has ${capacity} queued messages`);
    this.name = "QueueFullError";
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
