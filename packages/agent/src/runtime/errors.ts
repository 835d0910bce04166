import type { ErrorCode } from "@axiom-lattice/protocols";
import type { ThreadRunScope } from "@axiom-lattice/core";

/**
 * `multitaskStrategy: "reject"` and the thread has a run active or messages queued; or a thread to
 * delete has a run in progress.
 */
export class ThreadBusyError extends Error {
  readonly code = "THREAD_BUSY" satisfies ErrorCode;

  constructor(
    readonly scope: ThreadRunScope,
    message = `Thread ${scope.threadId} is busy: a run is active or messages are queued`,
  ) {
    super(message);
    this.name = "ThreadBusyError";
  }
}

/** A run to delete is in progress (a replica holds its claim): cancel it first. */
export class RunInProgressError extends Error {
  readonly code = "RUN_IN_PROGRESS" satisfies ErrorCode;

  constructor(readonly messageId: string) {
    super(`Run ${messageId} is in progress: cancel it before deleting it`);
    this.name = "RunInProgressError";
  }
}

/** The thread's assistant does not exist (for its tenant). */
export class AssistantNotFoundError extends Error {
  readonly code = "ASSISTANT_NOT_FOUND" satisfies ErrorCode;

  constructor(
    readonly tenantId: string,
    readonly assistantId: string,
  ) {
    super(`Assistant ${assistantId} not found`);
    this.name = "AssistantNotFoundError";
  }
}

