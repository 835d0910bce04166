import type { MaintenanceTask } from "../coordination/maintenanceLoop";
import { defaultLogger, type Logger } from "../logging/logger";
import { RETENTION_INITIAL_DELAY_MS, RETENTION_INTERVAL_MS } from "../defaults";

const HOUR_MS = 60 * 60 * 1_000;

export interface RetentionJobOptions {
  /** What is pruned, in log lines (`"<subject> pruned"`, phase `<subject>_retention`). */
  subject: string;
  /** Deletes what is older than `olderThanMs` by the store's clock; resolves to how many. */
  prune(olderThanMs: number): Promise<number>;
  /** Keep this many hours; 0, negative, non-integer (or NaN) disables the job. */
  retentionHours: number;
  /** Delay between a replica becoming maintenance leader and the first sweep (default 60 s). */
  initialDelayMs?: number;
  /** Period between sweeps (default 6 h). */
  intervalMs?: number;
  /** Default: a new {@link defaultLogger}. */
  logger?: Logger;
}

/**
 * Prunes what a store keeps longer than the retention (outbox events, run records), as a task of the
 * maintenance loop: one replica at a time sweeps (the maintenance leader), every `intervalMs`.
 * Sweeps never overlap (one asked for while one runs joins it) and failures are logged, never thrown.
 */
export class RetentionJob implements MaintenanceTask {
  readonly name: string;
  readonly intervalMs: number;
  readonly initialDelayMs: number;
  /** The retention in ms, or `null` when disabled. */
  readonly retentionMs: number | null;
  private readonly log: Logger;
  private sweeping: Promise<number> | undefined;

  constructor(private readonly options: RetentionJobOptions) {
    const hours = options.retentionHours;
    this.name = `${options.subject}-retention`;
    this.intervalMs = options.intervalMs ?? RETENTION_INTERVAL_MS;
    this.initialDelayMs = options.initialDelayMs ?? RETENTION_INITIAL_DELAY_MS;
    this.retentionMs = Number.isSafeInteger(hours) && hours > 0 ? hours * HOUR_MS : null;
    this.log = (options.logger ?? defaultLogger()).child({ phase: `${options.subject}_retention` });
  }

  get enabled(): boolean {
    return this.retentionMs !== null;
  }

  /** The job as a maintenance task, or none (logged once) when it is disabled. */
  maintenanceTasks(): MaintenanceTask[] {
    if (this.enabled) return [this];
    this.log.info({ retentionHours: this.options.retentionHours }, `${this.options.subject} retention disabled`);
    return [];
  }

  /** One sweep: what the maintenance loop runs. */
  run(): Promise<number> {
    return this.runOnce();
  }

  /**
   * Sweeps now, or joins the sweep already running; resolves to the number of items removed
   * (0 when disabled or failed).
   */
  runOnce(): Promise<number> {
    this.sweeping ??= this.sweep().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private async sweep(): Promise<number> {
    if (this.retentionMs === null) return 0;
    const { subject } = this.options;
    try {
      const removed = await this.options.prune(this.retentionMs);
      this.log.info({ removed, retentionMs: this.retentionMs }, `${subject} pruned`);
      return removed;
    } catch (error) {
      this.log.warn({ err: error }, `${subject} prune failed; will retry at the next sweep`);
      return 0;
    }
  }
}
