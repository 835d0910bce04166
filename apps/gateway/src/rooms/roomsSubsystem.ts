import type { Logger, TaskLifecycleNotifier } from "@axiom-lattice/core";
import type { OutboxStore, ProjectRoomStore } from "@axiom-lattice/protocols";
import type { Subsystem } from "../context/subsystem";
import type { GatewayMetrics } from "../metrics/gatewayMetrics";
import { ProjectRoomEventBroker } from "./projectRoomEventBroker";
import { publishRoomEvent, roomOutboxHandlers } from "./roomEventSync";
import { publishTaskEventsIntoRooms } from "./taskEventsIntoRooms";

export interface RoomsSubsystem extends Subsystem {
  roomEvents: ProjectRoomEventBroker;
}

/**
 * The realtime events of project rooms: each published here is mirrored to the peers, and theirs
 * reach this replica's subscribers. Closing ends every room stream at once: its clients reconnect to
 * a replica that stays.
 */
export function roomsSubsystem({
  outbox,
  replicaId,
  logger,
  metrics,
}: {
  outbox: OutboxStore;
  replicaId: string;
  logger: Logger;
  metrics: GatewayMetrics;
}): RoomsSubsystem {
  const roomEvents = new ProjectRoomEventBroker();
  roomEvents.setBroadcastHook((scope, serialized, sourceKey) => {
    void publishRoomEvent(outbox, replicaId, { scope, serialized, sourceKey }, logger);
  });
  return {
    name: "rooms",
    roomEvents,
    outboxHandlers: roomOutboxHandlers(roomEvents, (outcome) => metrics.roomEventsIngested.inc({ outcome })),
    stop: () => roomEvents.close(),
  };
}

/** Publishes each status change of a project's task into the rooms of its project. */
export function taskEventsIntoRoomsSubsystem(deps: {
  lifecycle: TaskLifecycleNotifier;
  rooms: ProjectRoomStore;
  broker: ProjectRoomEventBroker;
  logger: Logger;
}): Subsystem {
  return { name: "task-events-into-rooms", stop: publishTaskEventsIntoRooms(deps) };
}
