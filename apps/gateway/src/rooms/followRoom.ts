import { MAX_PAGE_LIMIT, roomMessageCursor } from "@axiom-lattice/core";
import type { ProjectRoomMessageStore, ProjectRoomScope } from "@axiom-lattice/protocols";
import type { ProjectRoomEventBroker, RoomEventDelivery, RoomSubscriptionEndReason } from "./projectRoomEventBroker";
import { isRoomEventId, messageCreatedEvent, messageSequenceOf, serializeRoomEvent } from "./roomEvent";

/** Why a room stream ended: the broker's reasons, or the message store failing a replay. */
export type RoomStreamEndReason = RoomSubscriptionEndReason | "history_unavailable";

/** Where a subscriber resumes, from its `Last-Event-ID`. */
export type RoomResumePoint =
  /** After this message sequence (0: the whole history). */
  | { after: number }
  /** An id that names no message: another event's, or any id of a gateway from before message ids were sequences. */
  | "unplaced";

/** A `Last-Event-ID` as a resume point; `undefined` when it is no room event id at all. */
export function resumePointOf(lastEventId: string): RoomResumePoint | undefined {
  const after = messageSequenceOf(lastEventId);
  if (after !== undefined) return { after };
  return isRoomEventId(lastEventId) ? "unplaced" : undefined;
}

/** Where a room stream's events go: the SSE stream of one client. */
export interface RoomStreamSink {
  /** One event (`id` is the SSE id line, absent for an event no one resumes after); settles once taken. */
  send(id: string | undefined, serialized: string): Promise<void>;
  end(reason: RoomStreamEndReason): void;
}

export interface RoomFollower {
  /**
   * False when the resume point names no message of the room (an id of another kind, or beyond the
   * room's history, as of a room deleted and made again): the stream follows from the room's last
   * message, and the client should read the history to know what it missed.
   */
  readonly replayComplete: boolean;
  /** Replays what the subscriber missed into `sink`, then follows live. */
  start(sink: RoomStreamSink): void;
  /** Stops following (the client has gone). */
  close(): void;
}

/**
 * Follows one room for one subscriber: every message after the resume point exactly once, in sequence
 * order, from any replica. It subscribes live first (live events wait in the broker), then places the
 * subscriber against the store: without a resume point, after the room's last message, so every
 * message posted once this resolves is streamed. `start` replays the missed messages from the store,
 * then hands on live events, dropping a message already sent and reading from the store the messages
 * a live one overtook (a peer's event may arrive before an earlier message's, or never: a replica
 * killed between storing and publishing). Other events are live only.
 */
export async function followRoom(
  broker: ProjectRoomEventBroker,
  messages: ProjectRoomMessageStore,
  scope: ProjectRoomScope,
  resumePoint: RoomResumePoint | undefined,
): Promise<RoomFollower> {
  let sink: RoomStreamSink | undefined;
  let endedBeforeStart: RoomStreamEndReason | undefined;
  let closed = false;
  /** The sequence of the last message sent. */
  let cursor = 0;
  let markStarted: (replayed: Promise<void>) => void = () => {};
  const replayed = new Promise<void>((resolve) => (markStarted = resolve));

  const send = async (id: string | undefined, serialized: string) => {
    if (!closed) await sink?.send(id, serialized);
  };
  /** Sends the stored messages after the cursor through `through`, a page at a time, until the last page. */
  const sendStored = async (through: number) => {
    while (!closed && cursor < through) {
      const limit = Math.min(MAX_PAGE_LIMIT, through - cursor);
      const page = await messages.listMessages(scope, { limit, cursor: roomMessageCursor(cursor) });
      for (const message of page.items) {
        await send(String(message.sequence), serializeRoomEvent(messageCreatedEvent(message)));
        cursor = message.sequence;
      }
      if (page.nextCursor === null) return;
    }
  };
  const deliver = async ({ id, serialized }: RoomEventDelivery) => {
    await replayed;
    const sequence = messageSequenceOf(id);
    if (sequence === undefined) return send(undefined, serialized);
    if (sequence <= cursor) return;
    if (sequence > cursor + 1) {
      try {
        await sendStored(sequence - 1);
      } catch {
        return end("history_unavailable");
      }
    }
    await send(id, serialized);
    cursor = sequence;
  };
  const end = (reason: RoomStreamEndReason) => {
    if (closed) return;
    if (!sink) {
      endedBeforeStart = reason;
      return;
    }
    closed = true;
    subscription.unsubscribe();
    sink.end(reason);
  };

  const subscription = broker.subscribe(scope, { event: deliver, end });
  let last: number;
  try {
    last = await messages.lastSequence(scope);
  } catch (error) {
    subscription.unsubscribe();
    throw error;
  }
  const after = typeof resumePoint === "object" && resumePoint.after <= last ? resumePoint.after : undefined;
  cursor = after ?? last;
  return {
    replayComplete: resumePoint === undefined || after !== undefined,
    start(target) {
      sink = target;
      if (endedBeforeStart !== undefined) return end(endedBeforeStart);
      markStarted(sendStored(Number.POSITIVE_INFINITY).catch(() => end("history_unavailable")));
    },
    close() {
      closed = true;
      subscription.unsubscribe();
    },
  };
}
