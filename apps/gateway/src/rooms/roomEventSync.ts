import type { Logger, OutboxTopicHandlers } from "@axiom-lattice/core";
import { type OutboxStore, ROOM_EVENT_TOPIC, type RoomEventEnvelope } from "@axiom-lattice/protocols";
import type { ForeignEventOutcome, ProjectRoomEventBroker } from "./projectRoomEventBroker";

// Room events cross replicas on the outbox topic `room-event`: the publishing replica appends each
// local event, every peer's poller hands it to its broker. Best-effort both ways: a client that missed
// something refetches the REST history, the authority.

/**
 * Appends one locally published event to the outbox, as `owner` (so its own poller skips it). Never
 * rejects: a failed append is logged and the event stays local.
 */
export async function publishRoomEvent(
  outbox: OutboxStore,
  owner: string,
  envelope: RoomEventEnvelope,
  logger?: Pick<Logger, "warn">,
): Promise<void> {
  const payload: RoomEventEnvelope = { scope: envelope.scope, serialized: envelope.serialized, ...(envelope.sourceKey === undefined ? {} : { sourceKey: envelope.sourceKey }) };
  try {
    await outbox.append({ topic: ROOM_EVENT_TOPIC, payload, originReplicaId: owner });
  } catch (error) {
    logger?.warn({ err: error, scope: envelope.scope }, "room event not mirrored to peers (outbox append failed)");
  }
}

/** Hands a peer's event to the local broker. */
export function ingestRoomEvent(envelope: RoomEventEnvelope, broker: ProjectRoomEventBroker): ForeignEventOutcome {
  return broker.ingestForeignEvent(envelope.serialized, envelope.sourceKey);
}

/** Peers' room events, ingested by `broker`; `ingested` hears each outcome. */
export function roomOutboxHandlers(broker: ProjectRoomEventBroker, ingested: (outcome: ForeignEventOutcome) => void): OutboxTopicHandlers {
  return { [ROOM_EVENT_TOPIC]: (envelope) => ingested(ingestRoomEvent(envelope, broker)) };
}
