export type { PgStoreOptions } from "./db/pool";
export { PgStore } from "./db/pgStore";
export type { Migration } from "./migrations/migration";
export { allMigrations } from "./migrations/index";
export { MIGRATION_LOCK_KEY, MigrationError, ensureMigrated, runMigrations, type MigrationResult } from "./migrations/migrator";
export { PostgreSQLLeaseStore } from "./coordination/postgresqlLeaseStore";
export { Pool, type PoolConfig } from "pg";
