import { randomUUID } from "node:crypto";
import type { CreateThreadRequest } from "@axiom-lattice/protocols";
import { z } from "zod";
import { StoreArgumentError, optionalText, requireInteger, requireObject, requireText } from "../stores/storeArguments";
import { fieldRules as rules } from "../validation/fieldRules";
import { parseStoreArgument } from "../validation/parseStoreArgument";

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

/** A thread's metadata (or, `what`, another object of it: its config) as bounded JSON text. */
export function validateMetadata(metadata: unknown, what = "Thread metadata"): string {
  return JSON.stringify(parseStoreArgument(rules.jsonObject, metadata, what));
}

const threadSchema = z.object(
  {
    id: rules.text.default(() => randomUUID()),
    assistantId: rules.text,
    metadata: rules.jsonObject.default({}).transform((metadata) => JSON.stringify(metadata)),
    ttlMinutes: rules.ttlMinutes.optional().transform((ttl) => ttl ?? null),
  },
  { error: "must be an object" },
);

export const validateCreateThread = (request: CreateThreadRequest): ValidThread => parseStoreArgument(threadSchema, request, "Thread");

/** A thread's TTL in minutes, or null for none given. */
export const validateThreadTtl = (ttlMinutes: unknown): number | null => parseStoreArgument(rules.ttlMinutes.optional(), ttlMinutes, "Thread ttlMinutes") ?? null;

const expiryClaim = z.object({ limit: rules.integer(1, 1000), claimMs: rules.integer(1) });

/** A claim of expired threads: how many, for how long. */
export const validateExpiryClaim = (limit: unknown, claimMs: unknown): { limit: number; claimMs: number } =>
  parseStoreArgument(expiryClaim, { limit, claimMs }, "Expired thread claim");

const listFilter = z.object({ assistantId: rules.text.optional() }, { error: "must be an object" }).default({});

/** The filter of a thread list page. */
export const validateThreadListFilter = (filter: unknown): { assistantId?: string } => parseStoreArgument(listFilter, filter, "Thread list filter");

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
