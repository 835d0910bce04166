import {
  decodeOutboxCursor,
  encodeOutboxCursor,
  validateOutboxAge,
  validateOutboxAppend,
  validateOutboxLimit,
} from "@axiom-lattice/core";
import type { AppendOutboxEventInput, OutboxEvent, OutboxPage, OutboxStore, OutboxWakeSource } from "@axiom-lattice/protocols";
import type { ClientBase } from "pg";
import { NotificationListener } from "../db/notificationListener";
import { listenConnection } from "../db/pooler";
import { PgStore } from "../db/pgStore";
import type { PgStoreOptions } from "../db/pool";
import { APPEND_EVENT, LATEST_CURSOR, OUTBOX_CHANNEL, PRUNE_OLDER_THAN, READ_AFTER } from "./outboxSql";

interface EventRow {
  id: string;
  txid: string;
  topic: string;
  payload: unknown;
  origin_replica_id: string;
  created_at: Date;
}

/** One result row per page event, or a single row with a NULL event when the page is empty. */
type ReadRow = { read_at: Date; oldest_waiting: Date | null } & (EventRow | { id: null });

const toEvent = (row: EventRow): OutboxEvent => ({
  id: row.id,
  cursor: encodeOutboxCursor(row.txid, row.id),
  topic: row.topic,
  payload: row.payload,
  originReplicaId: row.origin_replica_id,
  createdAt: row.created_at,
});

export interface PostgreSQLOutboxStoreOptions extends PgStoreOptions {
  /** application_name of the LISTEN connection (default "lattice-outbox-listener"). */
  listenerApplicationName?: string;
}

export interface OutboxAppendOptions {
  /**
   * Append on this connection — typically inside the caller's transaction, so the event commits (and
   * wakes peers) together with the change it announces, or not at all.
   */
  client?: ClientBase;
}

/**
 * {@link OutboxStore} on `lattice_outbox`, read gap-free below the transaction horizon. `subscribe`
 * LISTENs for appends on a dedicated connection (opened by the first subscriber, re-established when
 * it drops), so readers poll as soon as something commits.
 */
export class PostgreSQLOutboxStore extends PgStore implements OutboxStore, OutboxWakeSource {
  private readonly listener: NotificationListener;

  constructor(options: PostgreSQLOutboxStoreOptions) {
    super(options);
    this.listener = new NotificationListener({
      connection: listenConnection(this.pool, options),
      channel: OUTBOX_CHANNEL,
      applicationName: options.listenerApplicationName ?? "lattice-outbox-listener",
      logger: this.logger,
    });
  }

  async append<T extends string>(input: AppendOutboxEventInput<T>, options: OutboxAppendOptions = {}): Promise<OutboxEvent> {
    const valid = validateOutboxAppend(input);
    await this.initialize();
    const { rows } = await (options.client ?? this.pool).query<EventRow>({ ...APPEND_EVENT, values: [valid.topic, valid.payloadJson, valid.originReplicaId] });
    return toEvent(rows[0]);
  }

  async listAfter(cursor: string | null, limit: number): Promise<OutboxEvent[]> {
    return (await this.readAfter(cursor, limit)).events;
  }

  async readAfter(cursor: string | null, limit: number): Promise<OutboxPage> {
    const after = decodeOutboxCursor(cursor);
    validateOutboxLimit(limit);
    await this.initialize();
    const { rows } = await this.pool.query<ReadRow>({ ...READ_AFTER, values: [after.txid.toString(), after.id.toString(), limit] });
    const { read_at: readAt, oldest_waiting: oldestWaiting } = rows[0];
    return {
      events: rows.flatMap((row) => (row.id === null ? [] : [toEvent(row)])),
      pendingAboveHorizon: oldestWaiting !== null,
      horizonAgeMs: oldestWaiting === null ? 0 : Math.max(0, readAt.getTime() - oldestWaiting.getTime()),
      readAt,
    };
  }

  async latestId(): Promise<string | null> {
    await this.initialize();
    const { rows } = await this.pool.query<{ txid: string; id: string }>(LATEST_CURSOR);
    return rows[0] ? encodeOutboxCursor(rows[0].txid, rows[0].id) : null;
  }

  async pruneOlderThan(olderThanMs: number): Promise<number> {
    validateOutboxAge(olderThanMs);
    await this.initialize();
    const { rowCount } = await this.pool.query({ ...PRUNE_OLDER_THAN, values: [olderThanMs] });
    return rowCount ?? 0;
  }

  subscribe(onWake: () => void): () => void {
    return this.listener.subscribe(onWake);
  }

  /** Closes the LISTEN connection, then the pool when this store owns it. */
  override async dispose(): Promise<void> {
    await this.listener.close();
    await super.dispose();
  }
}
