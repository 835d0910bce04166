import type { OutboxPayload } from "../outboxTopics";

/** One durable cross-replica notification. */
export interface OutboxEvent<P = unknown> {
  id: string;
  /** Opaque position of this event; pass it to `listAfter` to read what follows. */
  cursor: string;
  topic: string;
  payload: P;
  originReplicaId: string;
  /** When the appending transaction started, by the store's clock. */
  createdAt: Date;
}

/** An event to append; a known topic's payload is type-checked against `OutboxPayloads`. */
export interface AppendOutboxEventInput<T extends string = string> {
  topic: T;
  /** Any JSON value; anything JSON would drop or alter (undefined, functions, BigInt, cycles, NaN) is refused. */
  payload: OutboxPayload<T>;
  originReplicaId: string;
}

/** One read of the log: the deliverable events after a cursor, and what still waits behind the horizon. */
export interface OutboxPage {
  events: OutboxEvent[];
  /**
   * Committed events exist after these but wait behind an older transaction that is still running
   * (anywhere in the database); they become deliverable, in order, once it ends. Read again soon.
   */
  pendingAboveHorizon: boolean;
  /** How long the oldest waiting event has waited (0 when none): a long-running transaction shows here. */
  horizonAgeMs: number;
  /** The store's clock at the read, comparable with `createdAt`. */
  readAt: Date;
}

/** Something that tells a reader "new events may be there" — a wake-up, never the data itself. */
export interface OutboxWakeSource {
  /** Calls `onWake` whenever new events may be readable; returns the function that unsubscribes. */
  subscribe(onWake: () => void): () => void;
}

/**
 * Append-only log replicas use to tell each other about facts. Reading is gap-free: an event is
 * returned only once every event before it in cursor order is final, so a reader that advances its
 * cursor past an event can never later find an earlier one appear.
 */
export interface OutboxStore {
  append<T extends string>(input: AppendOutboxEventInput<T>): Promise<OutboxEvent>;
  /** Up to `limit` deliverable events strictly after `cursor` (from the start when `null`), ascending. */
  listAfter(cursor: string | null, limit: number): Promise<OutboxEvent[]>;
  /** As `listAfter`, with what the poller needs to pace itself and report the horizon. */
  readAfter(cursor: string | null, limit: number): Promise<OutboxPage>;
  /** Cursor of the newest deliverable event, or `null` when there is none. */
  latestId(): Promise<string | null>;
  /** Deletes events older than `olderThanMs` by the store's clock; returns how many. */
  pruneOlderThan(olderThanMs: number): Promise<number>;
  /** Stores that can push wake-ups (NOTIFY, in-process appends) implement {@link OutboxWakeSource}. */
  subscribe?(onWake: () => void): () => void;
}
