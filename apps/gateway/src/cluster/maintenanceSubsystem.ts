import { type Logger, MaintenanceLoop, type MaintenanceTask } from "@axiom-lattice/core";
import type { LeaseStore } from "@axiom-lattice/protocols";
import type { Subsystem } from "../context/subsystem";

export interface MaintenanceSubsystem extends Subsystem {
  maintenance: MaintenanceLoop;
}

/** Runs `tasks` (every subsystem's upkeep) on one replica at a time, the holder of `leader:maintenance`. */
export function maintenanceSubsystem(options: {
  store: LeaseStore;
  tasks: readonly MaintenanceTask[];
  intervalMs: number;
  replicaId: string;
  logger: Logger;
}): MaintenanceSubsystem {
  const maintenance = new MaintenanceLoop(options);
  return { name: "maintenance", maintenance, start: () => maintenance.start(), stop: () => maintenance.stop() };
}
