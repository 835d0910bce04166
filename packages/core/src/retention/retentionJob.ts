import { getLogger, type Logger } from "../logging/logger";
import { RETENTION_INITIAL_DELAY_MS, RETENTION_INTERVAL_MS } from "../defaults";

const HOUR_MS = 60 * 60 * 1_000;

export interface RetentionJobOptions {
  /** What is pruned, in log lines (`"<subject> pruned"`, phase `<subject>_retention`). */
  subject: string;
  /** Deletes what is older than `olderThanMs` by the store's clock; resolves to how many. */
  prune(olderThanMs: number): Promise<number>;
  /** Keep this many hours; 0, negative, non-integer (or NaN) disables the job. */
  retentionHours: number;
  /** Delay before the first sweep (default 60 s). */
  initialDelayMs?: number;
  /** Period between sweeps (default 6 h). */
  intervalMs?: number;
  log?: Logger;
}

/**
 * Periodically prunes what a store keeps longer than the retention (outbox events, run records).
 * Every replica runs one; prunes are idempotent deletes, so replicas need not take turns.
 * Sweeps never overlap (the next is scheduled when one ends), failures are logged, never thrown,
 * and its timers never keep the process alive.
 */
export class RetentionJob {
  /** The retention in ms, or `null` when disabled. */
  readonly retentionMs: number | null;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;
  private stopped = false;

  constructor(private readonly options: RetentionJobOptions) {
    const hours = options.retentionHours;
    this.retentionMs = Number.isSafeInteger(hours) && hours > 0 ? hours * HOUR_MS : null;
    this.log = (options.log ?? getLogger()).child({ phase: `${options.subject}_retention` });
  }

  get enabled(): boolean {
    return this.retentionMs !== null;
  }

  /** Schedules the first sweep; a disabled job logs that and does nothing. */
  start(): void {
    if (this.retentionMs === null) {
      this.log.info({ retentionHours: this.options.retentionHours }, `${this.options.subject} retention disabled`);
      return;
    }
    if (this.timer || this.stopped) return;
    this.schedule(this.options.initialDelayMs ?? RETENTION_INITIAL_DELAY_MS);
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

  /** Cancels future sweeps and waits for one in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.sweeping;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      void this.runOnce().then(() => {
        if (!this.stopped) this.schedule(this.options.intervalMs ?? RETENTION_INTERVAL_MS);
      });
    }, delayMs);
    this.timer.unref();
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
