import type { OutboxPayload, OutboxStore, OutboxTopic } from "@axiom-lattice/protocols";

/** Tells the peers a fact of `topic` through the outbox. */
export type OutboxAnnounce = <T extends OutboxTopic>(topic: T, payload: OutboxPayload<T>) => Promise<void>;

/** Announces as `replicaId`, so this replica's own poller skips what it announced. */
export function outboxAnnouncer(outbox: OutboxStore, replicaId: string): OutboxAnnounce {
  return async (topic, payload) => {
    await outbox.append({ topic, payload, originReplicaId: replicaId });
  };
}
