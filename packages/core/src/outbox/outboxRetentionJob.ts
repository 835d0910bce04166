import type { OutboxStore } from "@axiom-lattice/protocols";
import { getLogger, type Logger } from "../logging/logger";

const HOUR_MS = 60 * 60 * 1_000;

export interface OutboxRetentionJobOptions {
  store: Pick<OutboxStore, "pruneOlderThan">;
  /** Keep events this many hours; 0, negative, non-integer (or NaN) disables the job. */
  retentionHours: number;
  /** Delay before the first sweep (default 60 s). */
  initialDelayMs?: number;
  /** Period between sweeps (default 6 h). */
  intervalMs?: number;
  log?: Logger;
}

/**
 * Prunes outbox events older than the retention. Safe because pollers only read forward from where
 * they started: by the time an event is a day old every live poller has long passed it.
 * Sweeps never overlap (the next is scheduled when one ends), failures are logged, never thrown,
 * and its timers never keep the process alive.
 */
export class OutboxRetentionJob {
  /** The retention in ms, or `null` when disabled. */
  readonly retentionMs: number | null;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;
  private stopped = false;

  constructor(private readonly options: OutboxRetentionJobOptions) {
    const hours = options.retentionHours;
    this.retentionMs = Number.isSafeInteger(hours) && hours > 0 ? hours * HOUR_MS : null;
    this.log = (options.log ?? getLogger()).child({ phase: "outbox_retention" });
  }

  get enabled(): boolean {
    return this.retentionMs !== null;
  }

  /** Schedules the first sweep; a disabled job logs that and does nothing. */
  start(): void {
    if (this.retentionMs === null) {
      this.log.info({ retentionHours: this.options.retentionHours }, "outbox retention disabled");
      return;
    }
    if (this.timer || this.stopped) return;
    this.schedule(this.options.initialDelayMs ?? 60_000);
  }

  /**
   * Sweeps now, or joins the sweep already running; resolves to the number of events removed
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
        if (!this.stopped) this.schedule(this.options.intervalMs ?? 6 * HOUR_MS);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async sweep(): Promise<number> {
    if (this.retentionMs === null) return 0;
    try {
      const removed = await this.options.store.pruneOlderThan(this.retentionMs);
      this.log.info({ removed, retentionMs: this.retentionMs }, "outbox pruned");
      return removed;
    } catch (error) {
      this.log.warn({ err: error }, "outbox prune failed; will retry at the next sweep");
      return 0;
    }
  }
}
