import type { z } from "zod";

// Bounds on the free-form JSON users hand the API and the stores: thread metadata, a run's resume
// value, a schedule's payload. Without them one request can store a value that later breaks every
// read of it (a serializer's recursion overflowing on 4,000 levels of nesting) or bloats each row.

/**
 * Deepest nesting of free-form JSON: each object or array is one level (`{ "a": [1] }` is 2). Real
 * metadata and payloads nest a handful of levels; 32 leaves ample room while staying far below any
 * recursion limit of the serializers and of PostgreSQL's jsonb.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Largest free-form JSON value, in bytes of its UTF-8 JSON text: 64 KiB holds any reasonable set of
 * labels or parameters, and keeps a thread listing of 1,000 threads within a sane response size.
 */
export const MAX_JSON_BYTES = 64 * 1024;

/** Whether `value` nests objects or arrays deeper than `levels`; recurses at most `levels + 1` deep. */
function nestsDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (levels === 0) return true;
  return Object.values(value).some((child) => nestsDeeperThan(child, levels - 1));
}

function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
  } catch {
    // Not JSON at all (a bigint, say): no size applies; the caller's own JSON check refuses it.
    return 0;
  }
}

/**
 * Why free-form JSON may not hold `value` (nested deeper than {@link MAX_JSON_DEPTH}, or larger than
 * {@link MAX_JSON_BYTES}), as the end of a sentence naming the value; `null` when it is within bounds.
 * Depth is judged first, without recursing past the bound, so no value is serialised (or walked)
 * deeper than that: input of any depth, even a cycle, is safe to check.
 */
export function jsonBoundsProblem(value: unknown): string | null {
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) return `must not nest objects and arrays deeper than ${MAX_JSON_DEPTH} levels`;
  if (jsonBytes(value) > MAX_JSON_BYTES) return `must not exceed ${MAX_JSON_BYTES} bytes as JSON`;
  return null;
}

/** `schema`, also refusing a value outside the bounds of free-form JSON (the reason is the issue). */
export function boundedJson<S extends z.ZodType>(schema: S): S {
  return schema.superRefine((value, context) => {
    const problem = jsonBoundsProblem(value);
    if (problem) context.addIssue({ code: "custom", message: problem });
  });
}
