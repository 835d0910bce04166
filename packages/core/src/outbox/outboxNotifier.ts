import type { OutboxStore, TransactionStores } from "@axiom-lattice/protocols";
import { getReplicaId } from "../identity/replicaId";
import { type Logger, defaultLogger } from "../logging/logger";
import { OutboxPayloadError } from "./outboxErrors";

export type NotifierListener<E> = (event: E) => void | Promise<void>;

export interface OutboxNotifierOptions {
  /** The outbox that carries events to peers (or install one later with `setOutbox`). */
  outbox?: OutboxStore;
  /** Stamped on appended events, so this replica's poller skips them; default {@link getReplicaId}. */
  replicaId?: string;
  /** Hears of listeners and appends that fail; default: a new {@link defaultLogger}. */
  logger?: Logger;
}

/**
 * Process-local publish/subscribe whose events also reach every peer through the outbox. A
 * publisher's own listeners hear an event once, directly; peers hear it once per poller delivery
 * (their poller calls {@link deliverFromOutbox}, which never appends again, so nothing echoes).
 */
export class OutboxNotifier<E> {
  private readonly listeners = new Set<NotifierListener<E>>();
  private outbox: OutboxStore | null;
  private readonly logger: Logger;

  /**
   * @param topic the outbox topic the events travel on
   * @param isEvent recognises a well-formed event in a peer's payload (payloads cross processes as JSON)
   */
  constructor(
    readonly topic: string,
    private readonly isEvent: (payload: unknown) => payload is E,
    private readonly options: OutboxNotifierOptions = {},
  ) {
    this.outbox = options.outbox ?? null;
    this.logger = options.logger ?? defaultLogger();
  }

  /** Adds a local listener; returns the function that removes it. */
  subscribe(listener: NotifierListener<E>): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Installs (or, with `null`, removes) the outbox that carries events to peers. */
  setOutbox(store: OutboxStore | null): void {
    this.outbox = store;
  }

  /**
   * Delivers to local listeners, then appends to the outbox with this replica's id. The append is
   * best-effort: REST and the stores stay the authority, so a failed append is logged, never thrown.
   */
  async publish(event: E): Promise<void> {
    await this.deliverLocally(event);
    const outbox = this.outbox;
    if (!outbox) return;
    try {
      await outbox.append({ topic: this.topic, payload: event, originReplicaId: this.options.replicaId ?? getReplicaId() });
    } catch (error) {
      this.warn(error, "outbox append failed; peers will not hear this event");
    }
  }

  /**
   * Appends `event` in a unit of work: peers hear it only if `tx` commits, together with the write it
   * announces. Local listeners hear nothing yet: call {@link deliverLocally} once it has committed.
   */
  async appendWithin(tx: Pick<TransactionStores, "outbox">, event: E): Promise<void> {
    await tx.outbox.append({ topic: this.topic, payload: event, originReplicaId: this.options.replicaId ?? getReplicaId() });
  }

  /**
   * Delivers a peer's event to local listeners only. A malformed payload is refused with
   * {@link OutboxPayloadError} (the poller logs and skips it) and reaches no listener.
   */
  async deliverFromOutbox(payload: unknown): Promise<void> {
    if (!this.isEvent(payload)) throw new OutboxPayloadError(`Malformed "${this.topic}" event from the outbox`);
    await this.deliverLocally(payload);
  }

  /** Delivers to local listeners only. Every listener is called (in subscription order); one that fails is logged and the rest still run. */
  async deliverLocally(event: E): Promise<void> {
    const outcomes = await Promise.allSettled([...this.listeners].map(async (listener) => listener(event)));
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") {
        this.warn(outcome.reason, "notifier listener failed");
      }
    }
  }

  private warn(error: unknown, message: string): void {
    this.logger.warn({ phase: "outbox", topic: this.topic, err: error }, message);
  }
}
