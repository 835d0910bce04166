import { FencedOutError } from "@axiom-lattice/core";
import type { LeaseFence } from "@axiom-lattice/protocols";

// A write made under a lease's tenure is judged in the write's own statement (or transaction): it
// goes through only while that tenure's token is still the key's, and it locks the lease row FOR
// SHARE until it commits. A takeover updates that row, so it waits for a fenced write in progress
// and then reads what it wrote; a write arriving after a takeover committed finds a newer token (read
// committed re-checks the row once the updater commits) and writes nothing.

/**
 * The fence of a single statement whose parameters $k and $k+1 are the fence's key and token (both
 * NULL: the write is not fenced). `cte` defines `fence` (put it in the statement's WITH); `holds` is
 * the condition the write's rows must meet, and what the statement answers so the store can tell a
 * refused write from one that found nothing to do.
 */
export function statementFence(keyParam: number): { cte: string; holds: string } {
  const key = `$${keyParam}::text`;
  return {
    cte: `fence AS MATERIALIZED (
    SELECT
      FROM lattice_leases
     WHERE key = ${key}
       AND token = $${keyParam + 1}::bigint
       FOR SHARE)`,
    holds: `(${key} IS NULL OR EXISTS (SELECT FROM fence))`,
  };
}

/** The parameters of a {@link statementFence}: the fence's key and token, or two NULLs. */
export const fenceParams = (fence: LeaseFence | undefined): [string | null, string | null] => [fence?.key ?? null, fence?.token ?? null];

/** A fence checked first in a transaction ($1 key, $2 token): no row, the tenure is not the latest. */
export const LOCK_FENCE = `
  SELECT
    FROM lattice_leases
   WHERE key = $1
     AND token = $2::bigint
     FOR SHARE`;

/** Throws {@link FencedOutError} when a fenced statement answered that its fence did not hold. */
export function assertHeld(holds: boolean | undefined, fence: LeaseFence | undefined): void {
  if (fence && holds !== true) throw new FencedOutError(fence);
}
