import type { OutboxEvent, OutboxPage, OutboxStore, OutboxWakeSource } from "@axiom-lattice/protocols";
import { defaultLogger, type Logger } from "../logging/logger";
import { type LatticeObserver, NO_OBSERVER, type OutboxDeliveryOutcome } from "../observability/latticeObserver";
import { OutboxArgumentError } from "./outboxErrors";
import { OUTBOX_BATCH_SIZE, OUTBOX_PENDING_RETRY_MS, OUTBOX_POLL_INTERVAL_MS } from "../defaults";

/** Handles one topic's payloads from peers. Handlers must be idempotent: delivery is at-least-once. */
export type OutboxHandler = (payload: unknown, event: OutboxEvent) => void | Promise<void>;

export interface OutboxPollerOptions {
  store: OutboxStore;
  /** This replica's id: events it appended itself are skipped (it delivered them locally). */
  owner: string;
  handlers: Readonly<Record<string, OutboxHandler>>;
  /** Fallback poll period when no wake-up comes (default 1000 ms). */
  intervalMs?: number;
  /** Events read per query (default 100). */
  batchSize?: number;
  /**
   * Longest re-poll delay while committed events wait behind the horizon (default 20 ms). Re-polls
   * start at 2 ms and double up to it: most holds are another transaction's last millisecond.
   */
  pendingRetryMs?: number;
  /** Default: a new {@link defaultLogger}. */
  logger?: Logger;
  /** Wake-ups that trigger an immediate poll; defaults to the store when it provides them, `null` for none. */
  wakeups?: OutboxWakeSource | null;
  /** Told about every event passed, by topic and outcome (metrics). */
  observer?: LatticeObserver;
}

/** Counters for /metrics and /api/cluster. */
export interface OutboxPollerStats {
  /** Cursor of the last event passed (delivered, skipped or ignored); `null` before the first. */
  cursor: string | null;
  /** Events a handler accepted. */
  delivered: number;
  /** Events a handler rejected; each was logged and skipped. */
  failed: number;
  /** Own events skipped. */
  skippedOwn: number;
  /** Events of topics without a handler. */
  ignored: number;
  polls: number;
  pollErrors: number;
  /** How long the oldest event of the last non-empty page had waited when read (0 when caught up). */
  lagMs: number;
  /** How long the oldest committed event has waited behind the horizon (0 when none). */
  horizonAgeMs: number;
  lastPollAt: Date | null;
}

type State = "idle" | "starting" | "running" | "stopped";

function positive(value: number | undefined, fallback: number, what: string, integer = false): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new OutboxArgumentError(`OutboxPoller ${what} must be a positive ${integer ? "integer" : "number"}, got ${String(value)}`);
  }
  return value;
}

/**
 * Delivers peers' outbox events to local handlers. One poll runs at a time; a wake-up during a poll
 * makes it read once more instead of starting a second one. The cursor lives in memory: a replica
 * that was not running is not replayed history (it starts from `latestId()`).
 */
export class OutboxPoller {
  private readonly store: OutboxStore;
  private readonly owner: string;
  private readonly handlers: Readonly<Record<string, OutboxHandler>>;
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private readonly pendingRetryMs: number;
  private readonly log: Logger;
  private readonly wakeups: OutboxWakeSource | null;
  private readonly observer: LatticeObserver;

  private state: State = "idle";
  private cursor: string | null = null;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private wokenDuringPoll = false;
  /** Consecutive polls that found events held behind the horizon. */
  private heldPolls = 0;
  private unsubscribe: (() => void) | undefined;
  private readonly counters: Omit<OutboxPollerStats, "cursor"> = {
    delivered: 0,
    failed: 0,
    skippedOwn: 0,
    ignored: 0,
    polls: 0,
    pollErrors: 0,
    lagMs: 0,
    horizonAgeMs: 0,
    lastPollAt: null,
  };

  constructor(options: OutboxPollerOptions) {
    if (typeof options.owner !== "string" || options.owner.length === 0) {
      throw new OutboxArgumentError("OutboxPoller owner must be a non-empty string");
    }
    this.store = options.store;
    this.owner = options.owner;
    this.handlers = options.handlers;
    this.intervalMs = positive(options.intervalMs, OUTBOX_POLL_INTERVAL_MS, "intervalMs");
    this.batchSize = positive(options.batchSize, OUTBOX_BATCH_SIZE, "batchSize", true);
    this.pendingRetryMs = positive(options.pendingRetryMs, OUTBOX_PENDING_RETRY_MS, "pendingRetryMs");
    this.log = (options.logger ?? defaultLogger()).child({ phase: "outbox" });
    this.observer = options.observer ?? NO_OBSERVER;
    this.wakeups = options.wakeups === undefined ? (options.store.subscribe ? (options.store as OutboxWakeSource) : null) : options.wakeups;
  }

  /** Starts from the newest deliverable event (history is not replayed) and polls from then on. */
  async start(): Promise<void> {
    if (this.state !== "idle") throw new Error(`OutboxPoller cannot start: it is ${this.state}`);
    this.state = "starting";
    // Subscribe first so a wake-up between reading the start and the first poll is not lost.
    this.unsubscribe = this.wakeups?.subscribe(() => this.wake());
    try {
      this.cursor = await this.store.latestId();
    } catch (error) {
      this.unsubscribe?.();
      this.state = "idle";
      throw error;
    }
    if (this.state !== "starting") return; // stopped meanwhile
    this.state = "running";
    this.wake();
  }

  /** Stops polling and waits for the batch in flight to finish. */
  async stop(): Promise<void> {
    this.state = "stopped";
    clearTimeout(this.timer);
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.inFlight;
  }

  /** Polls now (or once more right after the poll in flight). */
  wake(): void {
    if (this.state !== "running") return;
    if (this.inFlight) {
      this.wokenDuringPoll = true;
      return;
    }
    clearTimeout(this.timer);
    this.inFlight = this.poll();
  }

  stats(): OutboxPollerStats {
    return { cursor: this.cursor, ...this.counters };
  }

  private async poll(): Promise<void> {
    let next = this.intervalMs;
    try {
      let page: OutboxPage;
      do {
        this.wokenDuringPoll = false;
        page = await this.store.readAfter(this.cursor, this.batchSize);
        this.record(page);
        for (const event of page.events) {
          await this.deliver(event);
          this.cursor = event.cursor;
        }
        // A full page means more may follow; a wake-up during the read may mean a newer commit.
      } while (this.state === "running" && (page.events.length === this.batchSize || this.wokenDuringPoll));
      this.heldPolls = page.pendingAboveHorizon ? this.heldPolls + 1 : 0;
      if (this.heldPolls > 0) next = Math.min(this.pendingRetryMs, 2 ** this.heldPolls);
    } catch (error) {
      this.counters.pollErrors += 1;
      this.log.warn({ err: error }, "outbox poll failed; retrying at the next interval");
    } finally {
      this.inFlight = undefined;
      if (this.state === "running") {
        this.timer = setTimeout(() => this.wake(), next);
        // Background work: never the reason a process stays alive.
        this.timer.unref();
      }
    }
  }

  private record(page: OutboxPage): void {
    this.counters.polls += 1;
    this.counters.lastPollAt = page.readAt;
    this.counters.horizonAgeMs = page.horizonAgeMs;
    const oldest = page.events[0];
    this.counters.lagMs = oldest ? Math.max(0, page.readAt.getTime() - oldest.createdAt.getTime()) : 0;
  }

  private async deliver(event: OutboxEvent): Promise<void> {
    const outcome = await this.handle(event);
    this.counters[OUTCOME_COUNTERS[outcome]] += 1;
    this.observer.outboxEventPassed?.({ topic: event.topic, outcome });
  }

  private async handle(event: OutboxEvent): Promise<OutboxDeliveryOutcome> {
    if (event.originReplicaId === this.owner) return "skipped_own";
    // Own properties only: a topic named "constructor" or "__proto__" must not reach Object.prototype.
    const handler = Object.hasOwn(this.handlers, event.topic) ? this.handlers[event.topic] : undefined;
    if (!handler) return "ignored";
    try {
      await handler(event.payload, event);
      return "delivered";
    } catch (error) {
      // Skipped, never retried: a payload a handler rejects would otherwise block every later event.
      this.log.warn({ err: error, topic: event.topic, eventId: event.id, origin: event.originReplicaId }, "outbox handler failed; event skipped");
      return "failed";
    }
  }
}

const OUTCOME_COUNTERS = {
  delivered: "delivered",
  failed: "failed",
  skipped_own: "skippedOwn",
  ignored: "ignored",
} as const satisfies Record<OutboxDeliveryOutcome, keyof OutboxPollerStats>;
