import { randomUUID } from "node:crypto";
import type { AddMessageParams, ClaimMessagesOptions, FinishedRunStatus, LeaseFence, QueueScope, RunEvent, RunOutcome, ThreadQueueRef } from "@axiom-lattice/protocols";
import { validateFence } from "../coordination/leaseFence";
import {
  StoreArgumentError,
  optionalString,
  optionalText,
  requireInteger,
  requireJson,
  requireNonNegativeNumber,
  requireObject,
  requirePositiveNumber,
  requireText,
} from "../stores/storeArguments";

// Checks shared by every MessageQueueStore, so bad input is refused alike and before any write.

/** A scope with both keys resolved: `null` is the strict "IS NULL" the scope means when a key is absent. */
export interface StrictScope {
  tenantId: string | null;
  assistantId: string | null;
}

export interface ValidMessage extends StrictScope {
  id: string;
  threadId: string;
  /** The content as JSON text. */
  content: string;
  priority: number;
  /** The bound this add must respect: the store's capacity, or the add's own when that is smaller. */
  capacity: number;
  /** Most queued messages of the tenant after this add; `null`: no bound. */
  tenantCapacity: number | null;
  /** Claimable this many ms after the add; 0: at once. */
  delayMs: number;
  /** Whether the add is refused unless the scope's assistant and its thread exist (a tenant and an assistant given). */
  requireTarget: boolean;
}

export interface ValidClaim {
  owner: string;
  leaseMs: number;
  limit: number;
  fence?: LeaseFence;
}

/** Most rows one claim, renewal or listing handles. */
export const MAX_QUEUE_BATCH = 1000;

const FINISHED_RUN_STATUSES: readonly FinishedRunStatus[] = ["success", "error", "interrupted", "aborted"];

export function validateScope(scope: QueueScope | undefined): StrictScope {
  if (scope === undefined) return { tenantId: null, assistantId: null };
  const checked = requireObject(scope, "Queue scope");
  return {
    tenantId: optionalText(checked.tenantId, "Queue scope tenantId") ?? null,
    assistantId: optionalText(checked.assistantId, "Queue scope assistantId") ?? null,
  };
}

export function validateThreadId(threadId: unknown): string {
  return requireText(threadId, "threadId");
}

/** A thread's queue, checked: its thread id and its strict scope. */
export function validateThreadQueue(thread: ThreadQueueRef): { threadId: string; scope: StrictScope } {
  const checked = requireObject(thread, "Thread queue");
  return { threadId: validateThreadId(checked.threadId), scope: validateScope(checked) };
}

export function validateMessageId(id: unknown): string {
  return requireText(id, "Message id");
}

/** Checks an add and fills in its defaults (a fresh id, priority 0, the store's `capacity`). */
export function validateAddMessage(params: AddMessageParams, storeCapacity: number): ValidMessage {
  const checked = requireObject(params, "Message");
  const capacity = checked.capacity === undefined ? storeCapacity : requireInteger(checked.capacity, "Message capacity", 1);
  return {
    id: checked.id === undefined ? randomUUID() : validateMessageId(checked.id),
    threadId: validateThreadId(checked.threadId),
    ...validateScope(checked.scope as QueueScope),
    content: requireJson(checked.content, "Message content"),
    priority: checked.priority === undefined ? 0 : requireInteger(checked.priority, "Message priority"),
    capacity: Math.min(capacity, storeCapacity),
    tenantCapacity: checked.tenantCapacity === undefined ? null : requireInteger(checked.tenantCapacity, "Message tenantCapacity", 1),
    delayMs: checked.delayMs === undefined ? 0 : requireInteger(checked.delayMs, "Message delayMs", 0),
    requireTarget: validateRequireTarget(checked),
  };
}

/** `requireTarget`, refused unless a boolean, and when true unless the scope names a tenant and an assistant. */
function validateRequireTarget(checked: Record<string, unknown>): boolean {
  const { requireTarget, scope } = checked;
  if (requireTarget === undefined || requireTarget === false) return false;
  if (requireTarget !== true) throw new StoreArgumentError("Message requireTarget must be a boolean");
  const { tenantId, assistantId } = validateScope(scope as QueueScope);
  if (tenantId === null || assistantId === null) throw new StoreArgumentError("Message requireTarget needs a scope with a tenantId and an assistantId");
  return true;
}

export function validateClaimOptions(options: ClaimMessagesOptions): ValidClaim {
  const checked = requireObject(options, "Claim options");
  return {
    owner: requireText(checked.owner, "Claim owner"),
    leaseMs: requirePositiveNumber(checked.leaseMs, "Claim leaseMs"),
    limit: checked.limit === undefined ? 1 : requireInteger(checked.limit, "Claim limit", 1, MAX_QUEUE_BATCH),
    fence: validateFence(checked),
  };
}

export function validateRenewal(ids: unknown, owner: unknown, leaseMs: unknown): { ids: string[]; owner: string; leaseMs: number } {
  if (!Array.isArray(ids) || ids.length > MAX_QUEUE_BATCH) {
    throw new StoreArgumentError(`Claim ids must be an array of at most ${MAX_QUEUE_BATCH} message ids`);
  }
  return {
    ids: ids.map(validateMessageId),
    owner: requireText(owner, "Claim owner"),
    leaseMs: requirePositiveNumber(leaseMs, "Claim leaseMs"),
  };
}

export interface ValidRunOutcome {
  status: FinishedRunStatus;
  error: string | null;
  /** The events to log with it; empty when none. */
  events: RunEvent[];
}

export function validateRunOutcome(outcome: RunOutcome): ValidRunOutcome {
  const checked = requireObject(outcome, "Run outcome");
  if (!FINISHED_RUN_STATUSES.includes(checked.status as FinishedRunStatus)) {
    throw new StoreArgumentError(`Run outcome status must be one of ${FINISHED_RUN_STATUSES.join(", ")}`);
  }
  const error = optionalString(checked.error, "Run outcome error") ?? null;
  if (checked.events === undefined) return { status: checked.status as FinishedRunStatus, error, events: [] };
  if (!Array.isArray(checked.events)) throw new StoreArgumentError("Run outcome events must be an array");
  const events = checked.events.map((value: unknown): RunEvent => {
    const event = requireObject(value, "Run outcome event");
    const type = requireText(event.type, "Run outcome event type") as RunEvent["type"];
    return { index: requireInteger(event.index, "Run outcome event index", 0), type, data: event.data };
  });
  return { status: checked.status as FinishedRunStatus, error, events };
}

/** The lease a pending read releases first (`PendingMessagesOptions.afterReleasing`), if any. */
export function validatePendingOptions(options: unknown): { key: string; holder: string } | undefined {
  if (options === undefined) return undefined;
  const { afterReleasing } = requireObject(options, "Pending messages options");
  if (afterReleasing === undefined) return undefined;
  const { key, holder } = requireObject(afterReleasing, "The lease to release");
  return { key: requireText(key, "The released lease's key"), holder: requireText(holder, "The released lease's holder") };
}

/** Which run an abort request names: a message of the thread, or (`undefined`) the one in progress. */
export function validateAbortTarget(target: unknown): string | undefined {
  if (target === undefined) return undefined;
  const { messageId } = requireObject(target, "Abort target");
  return messageId === undefined ? undefined : validateMessageId(messageId);
}

export function validateCapacity(capacity: unknown): number {
  return requireInteger(capacity, "Queue capacity", 1);
}

/** A run retention age: a finite number of milliseconds, at least 0. */
export function validateRunAge(olderThanMs: unknown): number {
  return requireNonNegativeNumber(olderThanMs, "Run retention olderThanMs");
}
