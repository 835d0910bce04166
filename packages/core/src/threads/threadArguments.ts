import { randomUUID } from "node:crypto";
import type { CreateThreadRequest } from "@axiom-lattice/protocols";
import { z } from "zod";
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
