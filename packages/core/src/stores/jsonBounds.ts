import type { z } from "zod";
import { MAX_JSON_BYTES, MAX_JSON_DEPTH } from "../defaults";

// Bounds on the free-form JSON users hand the API and the stores: thread metadata, a run's resume
// value, a schedule's payload. Without them one request can store a value that later breaks every
// read of it (a serializer's recursion overflowing on 4,000 levels of nesting) or bloats each row.

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

/** Why no store can keep `value` as JSON (not serialisable, or U+0000 in it), or `null`; `undefined` is left to the schema. */
function storableProblem(value: unknown): string | null {
  if (value === undefined) return null;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return "must be JSON-serialisable";
  }
  if (json === undefined) return "must be a JSON value";
  // PostgreSQL jsonb cannot hold U+0000: refused here, at the edge too, rather than by a store.
  return json.includes("\\u0000") ? "must not contain NUL characters" : null;
}

/**
 * `schema`, also refusing a value outside the bounds of free-form JSON, or one no store can keep (the
 * reason is the issue). The rule of free-form JSON for the stores (`fieldRules.jsonObject`) and the edge.
 */
export function boundedJson<S extends z.ZodType>(schema: S): S {
  return schema.superRefine((value, context) => {
    // Depth first, so a value is never serialised past the bound.
    const problem = jsonBoundsProblem(value) ?? storableProblem(value);
    if (problem) context.addIssue({ code: "custom", message: problem });
  });
}
