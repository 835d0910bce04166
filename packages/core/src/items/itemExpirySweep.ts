import type { ItemStore } from "@axiom-lattice/protocols";
import type { MaintenanceTask } from "../coordination/maintenanceLoop";
import { ITEM_EXPIRY_SWEEP_INTERVAL_MS } from "../defaults";
import type { Logger } from "../logging/logger";

/**
 * Removing expired store items, as a task of the maintenance loop: one replica at a time sweeps, and
 * should two overlap (a leadership handover) each item is still removed, and counted, once.
 */
export function itemExpirySweep(store: Pick<ItemStore, "deleteExpired">, options: { intervalMs?: number; logger: Logger }): MaintenanceTask {
  const log = options.logger.child({ phase: "item_expiry" });
  return {
    name: "item-expiry",
    intervalMs: options.intervalMs ?? ITEM_EXPIRY_SWEEP_INTERVAL_MS,
    async run() {
      const removed = await store.deleteExpired();
      if (removed > 0) log.info({ removed }, "expired store items removed");
      return removed;
    },
  };
}
