import { type Logger, type QueueNotice, type QueueWakeup, type QueueWakeupListener, asQueueNotice, defaultLogger } from "@axiom-lattice/core";
import type { Pool } from "pg";
import { NotificationListener } from "../db/notificationListener";
import { listenConnection } from "../db/pooler";
import { type PgStoreOptions, resolvePool } from "../db/pool";

export const QUEUE_WAKEUP_CHANNEL = "lattice_queue";

/** $1 channel, $2 payloads: one notification each, in order, delivered together at commit. */
const NOTIFY_ALL = "SELECT pg_notify($1, payload) FROM unnest($2::text[]) WITH ORDINALITY AS notice (payload, n) ORDER BY n";

interface NoticeBatch {
  payloads: string[];
  sent: Promise<void>;
}

export interface PostgreSQLQueueWakeupOptions extends Omit<PgStoreOptions, "autoMigrate"> {
  /** application_name of the LISTEN connection (default "lattice-queue-wakeup"). */
  listenerApplicationName?: string;
}

/**
 * Queue notices across replicas: `notify` is a `pg_notify` on `lattice_queue` carrying the notice
 * (the thread's scope, and whether it tells of an abort request) as JSON; subscribers LISTEN on a
 * dedicated connection, re-established whenever it drops. Notifications sent while it is down are
 * lost, which the queue sweep and the claim renewal's look at the control record make up for.
 */
export class PostgreSQLQueueWakeup implements QueueWakeup {
  private readonly pool: Pool;
  private readonly ownsPool: boolean;
  private readonly listener: NotificationListener;
  private readonly logger: Logger;
  /** The statement sent last, settled (failed or not). */
  private lastSent: Promise<void> = Promise.resolve();
  /** Notices waiting for it, sent together once it settles. */
  private nextBatch: NoticeBatch | undefined;

  constructor(options: PostgreSQLQueueWakeupOptions) {
    this.logger = options.logger ?? defaultLogger();
    ({ pool: this.pool, ownsPool: this.ownsPool } = resolvePool(options, this.logger));
    this.listener = new NotificationListener({
      connection: listenConnection(this.pool, options),
      channel: QUEUE_WAKEUP_CHANNEL,
      applicationName: options.listenerApplicationName ?? "lattice-queue-wakeup",
      logger: this.logger,
    });
  }

  /**
   * Sends the notice; settles once it is sent. One statement is in flight at a time: notices given
   * meanwhile go together in the next, so under load (an api replica notifying for every enqueue) they
   * cost a statement per round trip rather than one each, and a pooled connection less per request.
   */
  notify(notice: QueueNotice): Promise<void> {
    // Only the notice's own fields: a caller may pass a larger object (a thread's whole scope).
    const payload = JSON.stringify(asQueueNotice(notice));
    if (this.nextBatch) {
      this.nextBatch.payloads.push(payload);
      return this.nextBatch.sent;
    }
    const batch: NoticeBatch = { payloads: [payload], sent: Promise.resolve() };
    this.nextBatch = batch;
    batch.sent = this.lastSent.then(() => {
      this.nextBatch = undefined;
      return this.send(batch.payloads);
    });
    this.lastSent = batch.sent.catch(() => {});
    return batch.sent;
  }

  private async send(payloads: string[]): Promise<void> {
    await this.pool.query(NOTIFY_ALL, [QUEUE_WAKEUP_CHANNEL, payloads]);
  }

  subscribe(listener: QueueWakeupListener): () => void {
    return this.listener.subscribe((payload) => {
      // No payload: the connection is listening (again); what it missed, the sweep (an abort: the claim renewal) finds.
      if (payload === undefined) return;
      const notice = parseNotice(payload);
      if (notice) listener(notice);
      else this.logger.warn({ phase: "queue-wakeup", payload }, "ignored a malformed queue wake-up");
    });
  }

  /** Closes the LISTEN connection, and the pool when this instance created it. */
  async dispose(): Promise<void> {
    await this.listener.close();
    if (this.ownsPool) await this.pool.end();
  }
}

function parseNotice(payload: string): QueueNotice | null {
  try {
    return asQueueNotice(JSON.parse(payload));
  } catch {
    return null;
  }
}
