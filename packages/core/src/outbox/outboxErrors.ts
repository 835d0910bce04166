import type { ErrorCode } from "@axiom-lattice/protocols";

type OutboxErrorCode = Extract<ErrorCode, "INVALID_OUTBOX_ARGUMENT" | "INVALID_OUTBOX_PAYLOAD" | "INVALID_OUTBOX_CURSOR">;

/** An outbox call with arguments no store may act on; nothing was written. */
export class OutboxArgumentError extends TypeError {
  readonly code: OutboxErrorCode = "INVALID_OUTBOX_ARGUMENT";

  constructor(message: string) {
    super(message);
    this.name = "OutboxArgumentError";
  }
}

/** A payload JSON cannot carry faithfully (undefined, a function, a BigInt, a cycle, NaN, …). */
export class OutboxPayloadError extends OutboxArgumentError {
  override readonly code = "INVALID_OUTBOX_PAYLOAD" satisfies OutboxErrorCode;

  constructor(message: string) {
    super(message);
    this.name = "OutboxPayloadError";
  }
}

/** A cursor this store never handed out. */
export class OutboxCursorError extends OutboxArgumentError {
  override readonly code = "INVALID_OUTBOX_CURSOR" satisfies OutboxErrorCode;

  constructor(cursor: unknown) {
    super(`Not an outbox cursor: ${typeof cursor === "string" ? JSON.stringify(cursor.slice(0, 80)) : typeof cursor}`);
    this.name = "OutboxCursorError";
  }
}
