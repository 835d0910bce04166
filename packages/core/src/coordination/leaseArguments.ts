import type { ErrorCode, LeaseListOptions } from "@axiom-lattice/protocols";
import { LEASE_LIST_MAX } from "../defaults";

/** A lease call with arguments no store may act on; nothing was written. */
export class LeaseArgumentError extends TypeError {
  readonly code = "INVALID_LEASE_ARGUMENT" satisfies ErrorCode;

  constructor(message: string) {
    super(message);
    this.name = "LeaseArgumentError";
  }
}

function assertName(value: unknown, what: "key" | "holder"): asserts value is string {
  if (typeof value !== "string" || value.length === 0) {
    throw new LeaseArgumentError(`Lease ${what} must be a non-empty string`);
  }
}

/** Checks the arguments every lease store method takes; throws {@link LeaseArgumentError}. */
export function validateLeaseArguments(key: unknown, holder?: unknown, ttlMs?: unknown): void {
  assertName(key, "key");
  if (holder !== undefined) assertName(holder, "holder");
  if (ttlMs !== undefined && (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs <= 0)) {
    throw new LeaseArgumentError(`Lease ttlMs must be a finite number above 0, got ${String(ttlMs)}`);
  }
}

// A non-negative PostgreSQL bigint, as a decimal string.
const TOKEN = /^(0|[1-9][0-9]{0,18})$/;
const MAX_BIGINT = 2n ** 63n - 1n;

/** Whether `value` can be a lease's fencing token (see `LeaseRecord.token`). */
export function isLeaseToken(value: unknown): value is string {
  return typeof value === "string" && TOKEN.test(value) && BigInt(value) <= MAX_BIGINT;
}

/** Checks `LeaseStore.list` options and resolves the limit; throws {@link LeaseArgumentError}. */
export function validateLeaseListOptions(options: unknown): { prefix: string; limit: number } {
  const { prefix = "", limit = LEASE_LIST_MAX } = (options ?? {}) as LeaseListOptions;
  if (typeof prefix !== "string") throw new LeaseArgumentError("Lease list prefix must be a string");
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > LEASE_LIST_MAX) {
    throw new LeaseArgumentError(`Lease list limit must be an integer from 1 to ${LEASE_LIST_MAX}, got ${String(limit)}`);
  }
  return { prefix, limit };
}
