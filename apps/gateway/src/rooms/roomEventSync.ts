import type { Logger } from "@axiom-lattice/core";
import { type OutboxStore, type ProjectRoomScope, ROOM_EVENT_TOPIC } from "@axiom-lattice/protocols";
import type { ForeignEventOutcome, ProjectRoomEventBroker } from "./projectRoomEventBroker";

// Room events cross replicas on the outbox topic `room-event`: the publishing replica appends each
// local event, every peer's poller hands it to its broker. Best-effort both ways: a client that missed
// something refetches the REST history, the authority.

/** The outbox payload of one mirrored event. */
export interface RoomEventEnvelope {
  scope: ProjectRoomScope;
  serialized: string;
  sourceKey?: string;
}

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

/** Hands a peer's outbox payload to the local broker; anything that is no envelope is `malformed`. */
export function ingestRoomEvent(payload: unknown, broker: ProjectRoomEventBroker): ForeignEventOutcome {
  const envelope = payload as Partial<RoomEventEnvelope> | null;
  if (typeof envelope !== "object" || envelope === null || typeof envelope.serialized !== "string") return "malformed";
  const { sourceKey } = envelope;
  if (sourceKey !== undefined && (typeof sourceKey !== "string" || sourceKey.length === 0)) return "malformed";
  return broker.ingestForeignEvent(envelope.serialized, sourceKey);
}
