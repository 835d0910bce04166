import type { AppendOutboxEventInput } from "@axiom-lattice/protocols";
import { OutboxArgumentError } from "./outboxErrors";
import { serializeOutboxPayload } from "./outboxPayload";

/** What a store writes for a valid append: the checked names and the payload as JSON text. */
export interface ValidOutboxAppend {
  topic: string;
  originReplicaId: string;
  payloadJson: string;
}

function assertName(value: unknown, what: string): asserts value is string {
  if (typeof value !== "string" || value.length === 0 || value.includes("\u0000")) {
    throw new OutboxArgumentError(`Outbox ${what} must be a non-empty string without NUL characters`);
  }
}

/** Checks an append before anything is written; throws {@link OutboxArgumentError} / {@link OutboxPayloadError}. */
export function validateOutboxAppend<T extends string>(input: AppendOutboxEventInput<T>): ValidOutboxAppend {
  if (typeof input !== "object" || input === null) throw new OutboxArgumentError("Outbox append needs { topic, payload, originReplicaId }");
  assertName(input.topic, "topic");
  assertName(input.originReplicaId, "originReplicaId");
  return { topic: input.topic, originReplicaId: input.originReplicaId, payloadJson: serializeOutboxPayload(input.payload) };
}

/** A page size: a positive safe integer. */
export function validateOutboxLimit(limit: unknown): number {
  if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1) {
    throw new OutboxArgumentError(`Outbox limit must be a positive integer, got ${String(limit)}`);
  }
  return limit;
}

/** A retention age: a finite number of milliseconds, at least 0. */
export function validateOutboxAge(olderThanMs: unknown): number {
  if (typeof olderThanMs !== "number" || !Number.isFinite(olderThanMs) || olderThanMs < 0) {
    throw new OutboxArgumentError(`Outbox olderThanMs must be a finite number of at least 0, got ${String(olderThanMs)}`);
  }
  return olderThanMs;
}
