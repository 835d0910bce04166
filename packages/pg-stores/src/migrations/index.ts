import { leasesMigration } from "./185_leases";
import type { Migration } from "./migration";

/** Every migration the stores need, in version order. */
export const allMigrations: readonly Migration[] = [leasesMigration];
