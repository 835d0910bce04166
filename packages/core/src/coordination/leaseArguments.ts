import type { ErrorCode } from "@axiom-lattice/protocols";

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
