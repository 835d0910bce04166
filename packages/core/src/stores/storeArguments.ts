import type { ErrorCode } from "@axiom-lattice/protocols";

/** A store call with arguments no store may act on; nothing was written. */
export class StoreArgumentError extends TypeError {
  readonly code = "INVALID_STORE_ARGUMENT" satisfies ErrorCode;

  constructor(message: string) {
    super(message);
    this.name = "StoreArgumentError";
  }
}

// Hand-written twins of the shared rules (`validation/fieldRules.ts`) for the paths where zod costs
// too much: the queue's add/claim/renew/complete (2-13x slower in zod, bench/src/queueArgumentChecks.ts)
// and the ids every store call checks first. Same rules, same messages: test/validation/fieldRules.test.ts
// holds each to its rule. Anything else parses with `parseStoreArgument`.

// PostgreSQL text and jsonb cannot hold U+0000; refusing it everywhere keeps every store alike.
const hasNul = (value: string) => value.includes("\u0000");

/** A non-empty string without U+0000. */
export function requireText(value: unknown, what: string): string {
  if (typeof value !== "string" || value.length === 0 || hasNul(value)) {
    throw new StoreArgumentError(`${what} must be a non-empty string without NUL characters`);
  }
  return value;
}

/** Every tenant-scoped store call names its tenant. */
export function requireTenantId(tenantId: unknown): string {
  return requireText(tenantId, "tenantId");
}

/** `undefined`, or what {@link requireText} accepts. */
export function optionalText(value: unknown, what: string): string | undefined {
  return value === undefined ? undefined : requireText(value, what);
}

/** A string (possibly empty) without U+0000, or `undefined`. */
export function optionalString(value: unknown, what: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || hasNul(value)) throw new StoreArgumentError(`${what} must be a string without NUL characters`);
  return value;
}

/** An integer within [min, max] (PostgreSQL `integer` range unless narrowed). */
export function requireInteger(value: unknown, what: string, min = -2_147_483_648, max = 2_147_483_647): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new StoreArgumentError(`${what} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

/** A finite number of at least 0. */
export function requireNonNegativeNumber(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new StoreArgumentError(`${what} must be a finite number of at least 0, got ${String(value)}`);
  }
  return value;
}

/** A finite number above 0. */
export function requirePositiveNumber(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new StoreArgumentError(`${what} must be a finite number above 0, got ${String(value)}`);
  }
  return value;
}

/** A non-null object that is not an array. */
export function requireObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new StoreArgumentError(`${what} must be an object`);
  }
  return value as Record<string, unknown>;
}

/** The JSON text of a value every store can keep (so an in-memory store returns what a database would). */
export function requireJson(value: unknown, what: string): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new StoreArgumentError(`${what} must be JSON-serialisable: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (json === undefined) throw new StoreArgumentError(`${what} must be a JSON value`);
  if (json.includes("\\u0000")) throw new StoreArgumentError(`${what} must not contain NUL characters`);
  return json;
}
