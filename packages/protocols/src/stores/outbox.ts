/** One durable cross-replica notification. */
export interface OutboxEvent<P = unknown> {
  id: string;
  /** Opaque position of this event; pass it to `listAfter` to read what follows. */
  cursor: string;
  topic: string;
  payload: P;
  originReplicaId: string;
  createdAt: Date;
}

export interface AppendOutboxEventInput {
  topic: string;
  payload: unknown;
  originReplicaId: string;
}

/** Append-only log replicas use to tell each other about facts. */
export interface OutboxStore {
  append(input: AppendOutboxEventInput): Promise<OutboxEvent>;
  /** Up to `limit` deliverable events strictly after `cursor` (from the start when `null`), ascending. */
  listAfter(cursor: string | null, limit: number): Promise<OutboxEvent[]>;
  /** Cursor of the newest deliverable event, or `null` when there is none. */
  latestId(): Promise<string | null>;
  /** Deletes events older than `olderThanMs` by the store's clock; returns how many. */
  pruneOlderThan(olderThanMs: number): Promise<number>;
}
