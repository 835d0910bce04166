import type { FencedWriteOptions, LeaseFence } from "@axiom-lattice/protocols";
import type { HeldLease } from "./heldLease";
import { LeaseArgumentError, isLeaseToken } from "./leaseArguments";
import { LeaseLostError } from "./leaseHeartbeat";

/**
 * A fenced write was refused: its lease has a newer tenure than the one it was made under, so the
 * writer no longer owns the work; nothing was written. Its writer stops, as on a lost renewal.
 */
export class FencedOutError extends LeaseLostError {
  constructor(readonly fence: LeaseFence) {
    super(fence.key, `a write under tenure ${fence.token} was refused: the lease has a newer tenure`);
    this.name = "FencedOutError";
  }
}

/**
 * Judges fences within one process: what an in-memory store checks a fenced write against (the
 * in-memory lease store). PostgreSQL stores judge them in the write's own statement instead.
 */
export interface FenceCheck {
  /** Whether `fence` is still its key's latest tenure. */
  isCurrent(fence: LeaseFence): boolean;
  /**
   * For a write that awaits between its check and its change: throws {@link FencedOutError} unless
   * `fence` is current, then keeps it the latest (no new tenure of its key begins) until the returned
   * release is called, as PostgreSQL's lock on the fence holds a takeover back.
   */
  hold(fence: LeaseFence): () => void;
}

/** The fence of a write's options, checked; throws `LeaseArgumentError` on a malformed one. */
export function validateFence(options: FencedWriteOptions | undefined): LeaseFence | undefined {
  const fence = options?.fence;
  if (fence === undefined) return undefined;
  if (typeof fence !== "object" || fence === null || typeof fence.key !== "string" || fence.key.length === 0 || !isLeaseToken(fence.token)) {
    throw new LeaseArgumentError("A write's fence must be a lease key and its tenure's token (a decimal string)");
  }
  return { key: fence.key, token: fence.token };
}

/**
 * An in-memory store's check of a write's fence, made in the same synchronous step as the write:
 * throws {@link FencedOutError} when the fence's lease has a newer tenure. A store built without a
 * {@link FenceCheck} cannot judge fences and refuses fenced writes rather than make them unfenced.
 */
export function assertFenceHolds(check: FenceCheck | undefined, options: FencedWriteOptions | undefined): void {
  const fence = validateFence(options);
  if (fence && !currentFence(check, fence)) throw new FencedOutError(fence);
}

/**
 * As {@link assertFenceHolds}, answering whether the fence holds (an unfenced write's always does)
 * rather than throwing when it does not: for a write whose refusal is part of its answer.
 */
export function fenceHolds(check: FenceCheck | undefined, options: FencedWriteOptions | undefined): boolean {
  const fence = validateFence(options);
  return !fence || currentFence(check, fence);
}

function currentFence(check: FenceCheck | undefined, fence: LeaseFence): boolean {
  if (!check) throw new Error("This in-memory store judges no fences: build it with the lease store as its `fences`");
  return check.isCurrent(fence);
}

/** A tenure of a lease that makes fenced writes: its fence, and how it ends when a store refuses one. */
export type FencedTenure = Pick<HeldLease, "fence" | "revoke">;

/**
 * Makes `write` under the tenure's fence. A store refusing it ends the tenure at once (its signal
 * aborts, as on a refused renewal) before the refusal is rethrown: the work under it must stop.
 */
export async function writeUnderFence<T>(tenure: FencedTenure, write: (fence: LeaseFence) => Promise<T>): Promise<T> {
  try {
    return await write(tenure.fence);
  } catch (error) {
    if (error instanceof FencedOutError) tenure.revoke(error);
    throw error;
  }
}
