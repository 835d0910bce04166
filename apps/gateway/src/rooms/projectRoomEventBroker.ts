import type { ProjectRoomScope } from "@axiom-lattice/protocols";
import { randomBytes } from "node:crypto";
import { ROOM_MAX_PENDING_PER_SUBSCRIBER, ROOM_SOURCE_KEY_LIMIT } from "../defaults";
import { type ProjectRoomEvent, type ProjectRoomEventDraft, isRoomScope, parseRoomEvent, roomEventId, roomKey, serializeRoomEvent } from "./roomEvent";

export interface ProjectRoomEventBrokerOptions {
  sourceKeyLimit?: number;
  maxPendingPerSubscriber?: number;
}

/** Why a subscription ended: no event follows its `end`. */
export type RoomSubscriptionEndReason = "slow_subscriber" | "broker_closed" | "listener_failed";

/** One event for a subscriber: its id and its serialized form. */
export interface RoomEventDelivery {
  readonly id: string;
  readonly serialized: string;
}

export interface RoomEventListener {
  /** One event. A returned promise holds back the next one until it settles: a slow consumer. */
  event(delivery: RoomEventDelivery): void | Promise<void>;
  end(reason: RoomSubscriptionEndReason): void;
}

export interface RoomSubscription {
  unsubscribe(): void;
}

/** What became of a peer's event. */
export type ForeignEventOutcome = "delivered" | "duplicate" | "no_subscribers" | "malformed";

export type RoomBroadcastHook = (scope: ProjectRoomScope, serialized: string, sourceKey: string | undefined) => void;

interface Subscription {
  room: Room;
  listener: RoomEventListener;
  pending: RoomEventDelivery[];
  draining: boolean;
  ended: boolean;
}

/** A room with subscribers here; it goes with its last one. */
interface Room {
  key: string;
  subscriptions: Set<Subscription>;
}

const positive = (value: number, name: string): number => {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive safe integer`);
  return value;
};

/**
 * Realtime events of project rooms within one process: `publish` serializes each event once, immutable,
 * and queues it to the room's subscribers here. It keeps no events: a reconnecting subscriber resumes
 * from the message store (see `followRoom`). Bounded: the fact keys remembered, and what waits for each
 * subscriber, who is cut off with an end event beyond it: a stalled client never holds memory nor
 * delays anyone else. Peers' events come in through {@link ingestForeignEvent} and only reach local
 * subscribers.
 */
export class ProjectRoomEventBroker {
  private readonly sourceKeyLimit: number;
  private readonly maxPendingPerSubscriber: number;
  /** Names this broker's ids, unique across processes. */
  private readonly epoch = randomBytes(6).toString("hex");
  private readonly rooms = new Map<string, Room>();
  /** In insertion order, so the oldest is forgotten first. */
  private readonly seenSourceKeys = new Set<string>();
  private sequence = 0;
  private subscriberCount = 0;
  private broadcast: RoomBroadcastHook | undefined;
  private closed = false;

  constructor(options: ProjectRoomEventBrokerOptions = {}) {
    this.sourceKeyLimit = positive(options.sourceKeyLimit ?? ROOM_SOURCE_KEY_LIMIT, "sourceKeyLimit");
    this.maxPendingPerSubscriber = positive(options.maxPendingPerSubscriber ?? ROOM_MAX_PENDING_PER_SUBSCRIBER, "maxPendingPerSubscriber");
  }

  get activeSubscriberCount(): number {
    return this.subscriberCount;
  }

  /** Rooms with a subscriber here. */
  get roomCount(): number {
    return this.rooms.size;
  }

  /** Events queued to subscribers and not yet taken. */
  get pendingDeliveries(): number {
    let pending = 0;
    for (const room of this.rooms.values()) for (const subscription of room.subscriptions) pending += subscription.pending.length;
    return pending;
  }

  /**
   * Called after each local publish (not for peers' events), to mirror it to other replicas. A hook
   * that throws never fails the publish: mirroring is best-effort, the REST history the authority.
   */
  setBroadcastHook(hook: RoomBroadcastHook | undefined): void {
    this.broadcast = hook;
  }

  /**
   * Publishes an event the broker names (`<epoch>-<n>`) and times. With a `sourceKey` (a key of the fact
   * the event tells, shared by every replica's copy of it) an already seen fact is dropped: `undefined`,
   * nothing delivered or mirrored.
   */
  publish(scope: ProjectRoomScope, draft: ProjectRoomEventDraft, sourceKey?: string): ProjectRoomEvent | undefined {
    this.assertOpen();
    if (!isRoomScope(scope)) throw new TypeError("A room scope needs a non-empty tenantId, projectId and roomId");
    if (typeof draft?.type !== "string" || draft.type.length === 0) throw new TypeError("A room event needs a non-empty type");
    if (sourceKey !== undefined && this.seenSourceKeys.has(sourceKey)) return undefined;
    const event: ProjectRoomEvent = {
      id: roomEventId(this.epoch, this.sequence + 1),
      type: draft.type,
      scope: { tenantId: scope.tenantId, projectId: scope.projectId, roomId: scope.roomId },
      data: draft.data ?? null,
      createdAt: new Date().toISOString(),
    };
    // Serialized before any state changes: data JSON cannot hold (a BigInt) throws with nothing taken.
    const serialized = serializeRoomEvent(event);
    this.sequence += 1;
    return this.deliverLocal(event, serialized, sourceKey);
  }

  /**
   * Publishes an event its publisher named, such as a message's (its id is its sequence): as
   * {@link publish} otherwise.
   */
  publishEvent(event: ProjectRoomEvent, sourceKey?: string): ProjectRoomEvent | undefined {
    this.assertOpen();
    if (!isRoomScope(event?.scope)) throw new TypeError("A room scope needs a non-empty tenantId, projectId and roomId");
    if (sourceKey !== undefined && this.seenSourceKeys.has(sourceKey)) return undefined;
    return this.deliverLocal(event, serializeRoomEvent(event), sourceKey);
  }

  /**
   * Delivers a peer's event to this process's subscribers of its room. A fact already seen here is
   * dropped.
   */
  ingestForeignEvent(serializedEvent: string, sourceKey?: string): ForeignEventOutcome {
    const event = typeof serializedEvent === "string" ? parseRoomEvent(serializedEvent) : undefined;
    if (!event) return "malformed";
    if (sourceKey !== undefined) {
      if (this.seenSourceKeys.has(sourceKey)) return "duplicate";
      this.rememberSourceKey(sourceKey);
    }
    const room = this.closed ? undefined : this.rooms.get(roomKey(event.scope));
    if (!room) return "no_subscribers";
    // Re-serialized: only the canonical one-line form reaches a stream.
    this.fanOut(room, Object.freeze({ id: event.id, serialized: serializeRoomEvent(event) }));
    return "delivered";
  }

  /** Follows the room's events live, from now on. */
  subscribe(scope: ProjectRoomScope, listener: RoomEventListener): RoomSubscription {
    this.assertOpen();
    if (!isRoomScope(scope)) throw new TypeError("A room scope needs a non-empty tenantId, projectId and roomId");
    const key = roomKey(scope);
    const room = this.rooms.get(key) ?? { key, subscriptions: new Set<Subscription>() };
    this.rooms.set(key, room);
    const subscription: Subscription = { room, listener, pending: [], draining: false, ended: false };
    room.subscriptions.add(subscription);
    this.subscriberCount += 1;
    return {
      unsubscribe: () => {
        if (subscription.ended) return;
        subscription.ended = true;
        subscription.pending = [];
        this.detach(subscription);
      },
    };
  }

  /** Ends every subscription (`broker_closed`), lets go of everything and refuses further use. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.broadcast = undefined;
    for (const room of [...this.rooms.values()]) for (const subscription of [...room.subscriptions]) this.end(subscription, "broker_closed");
    this.rooms.clear();
    this.seenSourceKeys.clear();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("The room event broker is closed");
  }

  /** Queues a local event to the room's subscribers here, then mirrors it to peers. */
  private deliverLocal(event: ProjectRoomEvent, serialized: string, sourceKey: string | undefined): ProjectRoomEvent {
    if (sourceKey !== undefined) this.rememberSourceKey(sourceKey);
    const room = this.rooms.get(roomKey(event.scope));
    if (room) this.fanOut(room, Object.freeze({ id: event.id, serialized }));
    try {
      this.broadcast?.(event.scope, serialized, sourceKey);
    } catch {
      // Best-effort by contract: local subscribers have the event, REST has the fact.
    }
    return event;
  }

  /** One delivery, handed to every subscriber as it is: fan-out allocates nothing per subscriber. */
  private fanOut(room: Room, delivery: RoomEventDelivery): void {
    for (const subscription of [...room.subscriptions]) this.enqueue(subscription, delivery);
  }

  private rememberSourceKey(key: string): void {
    this.seenSourceKeys.add(key);
    if (this.seenSourceKeys.size > this.sourceKeyLimit) {
      const oldest = this.seenSourceKeys.values().next().value;
      if (oldest !== undefined) this.seenSourceKeys.delete(oldest);
    }
  }

  /** Queues one event to a subscriber; one that already has too many waiting is cut off instead. */
  private enqueue(subscription: Subscription, delivery: RoomEventDelivery): void {
    if (subscription.ended) return;
    if (subscription.pending.length >= this.maxPendingPerSubscriber) {
      this.end(subscription, "slow_subscriber");
      return;
    }
    subscription.pending.push(delivery);
    if (!subscription.draining) {
      subscription.draining = true;
      // Detached: a publisher never runs, nor waits for, a listener.
      queueMicrotask(() => void this.drain(subscription));
    }
  }

  private async drain(subscription: Subscription): Promise<void> {
    while (!subscription.ended && subscription.pending.length > 0) {
      const next = subscription.pending.shift() as RoomEventDelivery;
      try {
        await subscription.listener.event(next);
      } catch {
        this.end(subscription, "listener_failed");
      }
    }
    subscription.draining = false;
  }

  private end(subscription: Subscription, reason: RoomSubscriptionEndReason): void {
    if (subscription.ended) return;
    subscription.ended = true;
    subscription.pending = [];
    this.detach(subscription);
    try {
      subscription.listener.end(reason);
    } catch {
      // The subscription is over either way.
    }
  }

  private detach(subscription: Subscription): void {
    const { room } = subscription;
    if (!room.subscriptions.delete(subscription)) return;
    this.subscriberCount -= 1;
    if (room.subscriptions.size === 0 && this.rooms.get(room.key) === room) this.rooms.delete(room.key);
  }
}
