import type { LeaseStore } from "@axiom-lattice/protocols";
import { getLogger } from "../logging/logger";

/**
 * Releases a lease once its work is done. A failed release is logged, not thrown: the work itself
 * finished, and the lease frees itself when its ttl runs out.
 */
export async function releaseLease(store: LeaseStore, key: string, holder: string): Promise<void> {
  try {
    await store.release(key, holder);
  } catch (error) {
    getLogger().warn({ phase: "lease", key, holder, err: error }, "lease release failed; it will expire");
  }
}
