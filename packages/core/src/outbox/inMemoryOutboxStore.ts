import type { AppendOutboxEventInput, OutboxEvent, OutboxPage, OutboxStore, OutboxWakeSource } from "@axiom-lattice/protocols";
import { type Logger, defaultLogger } from "../logging/logger";
import { validateOutboxAge, validateOutboxAppend, validateOutboxLimit } from "./outboxArguments";
import { compareOutboxPositions, decodeOutboxCursor, encodeOutboxCursor, type OutboxPosition } from "./outboxCursor";

interface Entry {
  position: OutboxPosition;
  topic: string;
  payloadJson: string;
  originReplicaId: string;
  createdAt: number;
}

export interface InMemoryOutboxStoreOptions {
  /** The store's clock in epoch milliseconds (tests move it to age events). */
  now?: () => number;
  /** Hears of wake-up listeners that fail; default: a new {@link defaultLogger}. */
  logger?: Logger;
}

/**
 * Single-process {@link OutboxStore}, the default. Every append is its own finished transaction, so
 * nothing ever waits behind a horizon. Payloads are kept as JSON text and parsed on each read, so no
 * reader can alter what another reads — as with the PostgreSQL store.
 */
export class InMemoryOutboxStore implements OutboxStore, OutboxWakeSource {
  private readonly entries: Entry[] = [];
  private readonly wakeListeners = new Set<() => void>();
  private lastSeq = 0n;
  private readonly now: () => number;
  private readonly logger: Logger;

  constructor(options: InMemoryOutboxStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? defaultLogger();
  }

  async append<T extends string>(input: AppendOutboxEventInput<T>): Promise<OutboxEvent> {
    const valid = validateOutboxAppend(input);
    this.lastSeq += 1n;
    const entry: Entry = {
      position: { txid: this.lastSeq, id: this.lastSeq },
      topic: valid.topic,
      payloadJson: valid.payloadJson,
      originReplicaId: valid.originReplicaId,
      createdAt: this.now(),
    };
    this.entries.push(entry);
    // After the caller's await resumes, as a NOTIFY arrives after the commit.
    queueMicrotask(() => this.wake());
    return toEvent(entry);
  }

  async listAfter(cursor: string | null, limit: number): Promise<OutboxEvent[]> {
    return (await this.readAfter(cursor, limit)).events;
  }

  async readAfter(cursor: string | null, limit: number): Promise<OutboxPage> {
    const after = decodeOutboxCursor(cursor);
    validateOutboxLimit(limit);
    const from = this.firstAfter(after);
    return {
      events: this.entries.slice(from, from + limit).map(toEvent),
      pendingAboveHorizon: false,
      horizonAgeMs: 0,
      readAt: new Date(this.now()),
    };
  }

  async latestId(): Promise<string | null> {
    const last = this.entries.at(-1);
    return last ? encodeOutboxCursor(last.position.txid, last.position.id) : null;
  }

  async pruneOlderThan(olderThanMs: number): Promise<number> {
    const threshold = this.now() - validateOutboxAge(olderThanMs);
    const kept = this.entries.filter((entry) => entry.createdAt >= threshold);
    const removed = this.entries.length - kept.length;
    this.entries.splice(0, this.entries.length, ...kept);
    return removed;
  }

  subscribe(onWake: () => void): () => void {
    this.wakeListeners.add(onWake);
    return () => {
      this.wakeListeners.delete(onWake);
    };
  }

  private wake(): void {
    for (const listener of [...this.wakeListeners]) {
      try {
        listener();
      } catch (error) {
        this.logger.warn({ phase: "outbox", err: error }, "outbox wake-up listener failed");
      }
    }
  }

  /** Index of the first entry after `position` (entries are kept in position order). */
  private firstAfter(position: OutboxPosition): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareOutboxPositions(this.entries[middle].position, position) <= 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

function toEvent(entry: Entry): OutboxEvent {
  return {
    id: String(entry.position.id),
    cursor: encodeOutboxCursor(entry.position.txid, entry.position.id),
    topic: entry.topic,
    payload: JSON.parse(entry.payloadJson),
    originReplicaId: entry.originReplicaId,
    createdAt: new Date(entry.createdAt),
  };
}
