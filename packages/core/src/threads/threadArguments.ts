import { randomUUID } from "node:crypto";
import type { CreateThreadRequest } from "@axiom-lattice/protocols";
import { StoreArgumentError, optionalText, requireBoundedJson, requireInteger, requireObject, requireText, requireTtlMinutes } from "../stores/storeArguments";

// Checks shared by every ThreadStore, so bad input is refused alike and before any write.

export interface ValidThread {
  id: string;
  assistantId: string;
  /** JSON text of the metadata object. */
  metadata: string;
  ttlMinutes: number | null;
}

export interface ValidThreadFilter {
  assistantId?: string;
  metadata?: Record<string, unknown>;
  ids?: string[];
  sortBy: "createdAt" | "updatedAt" | "id";
  sortOrder: "asc" | "desc";
  limit: number;
  offset: number;
}

const SORT_KEYS = ["createdAt", "updatedAt", "id"] as const;
const SORT_ORDERS = ["asc", "desc"] as const;

function oneOf<T extends string>(value: unknown, allowed: readonly T[], what: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) throw new StoreArgumentError(`${what} must be one of ${allowed.join(", ")}, got ${String(value)}`);
  return value as T;
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

export function validateThreadFilter(filter: unknown): ValidThreadFilter {
  const checked = filter === undefined ? {} : requireObject(filter, "Thread filter");
  const ids = checked.ids;
  if (ids !== undefined && (!Array.isArray(ids) || ids.length > 1000)) throw new StoreArgumentError("Thread filter ids must be an array of at most 1000 ids");
  return {
    assistantId: optionalText(checked.assistantId, "Thread filter assistantId"),
    metadata: checked.metadata === undefined ? undefined : (JSON.parse(validateMetadata(checked.metadata)) as Record<string, unknown>),
    ids: ids?.map((id) => requireText(id, "Thread filter id")),
    sortBy: oneOf(checked.sortBy, SORT_KEYS, "Thread filter sortBy", "createdAt"),
    sortOrder: oneOf(checked.sortOrder, SORT_ORDERS, "Thread filter sortOrder", "desc"),
    limit: checked.limit === undefined ? 100 : requireInteger(checked.limit, "Thread filter limit", 1, 1000),
    offset: checked.offset === undefined ? 0 : requireInteger(checked.offset, "Thread filter offset", 0),
  };
}
