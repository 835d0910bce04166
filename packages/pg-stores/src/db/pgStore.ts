import { defaultLogger, type Logger } from "@axiom-lattice/core";
import type { Pool } from "pg";
import { ensureMigrated } from "../migrations/migrator";
import { type PgStoreOptions, resolvePool } from "./pool";
import type { PoolerOptions } from "./pooler";

/** Pool ownership, one-time migration and disposal shared by every PostgreSQL store. */
export abstract class PgStore {
  protected readonly pool: Pool;
  protected readonly logger: Logger;
  private readonly ownsPool: boolean;
  private readonly autoMigrate: boolean;
  private readonly pooler: PoolerOptions;
  private initPromise: Promise<void> | undefined;

  constructor(options: PgStoreOptions) {
    this.logger = options.logger ?? defaultLogger();
    const resolved = resolvePool(options, this.logger);
    this.pool = resolved.pool;
    this.ownsPool = resolved.ownsPool;
    this.autoMigrate = options.autoMigrate ?? true;
    this.pooler = { directConnectionString: options.directConnectionString };
  }

  /** Runs pending migrations once (unless `autoMigrate: false`); later calls share the first. */
  initialize(): Promise<void> {
    if (!this.initPromise) {
      const pending = this.autoMigrate ? ensureMigrated(this.pool, this.pooler).then(() => undefined) : Promise.resolve();
      this.initPromise = pending;
      // A failed attempt may be retried by the next call.
      pending.catch(() => {
        if (this.initPromise === pending) this.initPromise = undefined;
      });
    }
    return this.initPromise;
  }

  /** Ends the pool when this store created it; a shared pool is left to its owner. */
  async dispose(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }
}
