import { randomUUID } from "node:crypto";
import type { CreateThreadRequest } from "@axiom-lattice/protocols";
import { optionalText, requireBoundedJson, requireInteger, requireObject, requireText, requireTtlMinutes } from "../stores/storeArguments";

// Checks shared by every ThreadStore, so bad input is refused alike and before any write.

export interface ValidThread {
  id: string;
  assistantId: string;
  /** JSON text of the metadata object. */
  metadata: string;
  ttlMinutes: number | null;
}

/** A metadata object, within the bounds of free-form JSON, as JSON text. */
/** A thread's metadata (or, `what`, another object of it: its config) as bounded JSON text. */
export function validateMetadata(metadata: unknown, what = "Thread metadata"): string {
  return requireBoundedJson(requireObject(metadata, what), what);
}

export function validateCreateThread(request: CreateThreadRequest): ValidThread {
  const checked = requireObject(request, "Thread");
  return {
    id: checked.id === undefined ? randomUUID() : requireText(checked.id, "Thread id"),
    assistantId: requireText(checked.assistantId, "Thread assistantId"),
    metadata: validateMetadata(checked.metadata ?? {}),
    ttlMinutes: validateThreadTtl(checked.ttlMinutes),
  };
}

/** A thread's TTL in minutes, or null for none given. */
export function validateThreadTtl(ttlMinutes: unknown): number | null {
  return ttlMinutes === undefined ? null : requireTtlMinutes(ttlMinutes);
}

/** A claim of expired threads: how many, for how long. */
export function validateExpiryClaim(limit: unknown, claimMs: unknown): { limit: number; claimMs: number } {
  return { limit: requireInteger(limit, "Expired thread claim limit", 1, 1000), claimMs: requireInteger(claimMs, "Expired thread claim duration", 1) };
}

/** The filter of a thread list page. */
export function validateThreadListFilter(filter: unknown): { assistantId?: string } {
  const checked = filter === undefined ? {} : requireObject(filter, "Thread list filter");
  return { assistantId: optionalText(checked.assistantId, "Thread list filter assistantId") };
}
