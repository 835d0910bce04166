import type { ProjectRoomScope } from "@axiom-lattice/protocols";
import { randomBytes } from "node:crypto";
import {
  ROOM_MAX_EVENT_AGE_MS,
  ROOM_MAX_EVENTS_PER_ROOM,
  ROOM_MAX_GLOBAL_BYTES,
  ROOM_MAX_GLOBAL_EVENTS,
  ROOM_MAX_PENDING_PER_SUBSCRIBER,
  ROOM_MAX_ROOMS,
  ROOM_SOURCE_KEY_LIMIT,
} from "../defaults";
import {
  type ProjectRoomEvent,
  type ProjectRoomEventDraft,
  isRoomScope,
  parseRoomEvent,
  parseRoomEventId,
  roomEventId,
  roomKey,
  serializeRoomEvent,
} from "./roomEvent";

export interface ProjectRoomEventBrokerOptions {
  maxEventsPerRoom?: number;
  maxEventAgeMs?: number;
  /** Rooms kept; beyond, the least recently used is dropped (one without subscribers first). */
  maxRooms?: number;
  maxGlobalEvents?: number;
  /** UTF-8 bytes of every retained serialized event together. */
  maxGlobalBytes?: number;
  sourceKeyLimit?: number;
  maxPendingPerSubscriber?: number;
  /** Milliseconds since the epoch; injected by tests of age expiry. */
  now?: () => number;
}

/** Why a subscription ended: no event follows its `end`. */
export type RoomSubscriptionEndReason = "slow_subscriber" | "room_evicted" | "broker_closed" | "listener_failed";

/** One event for a subscriber: its id (for an SSE `id:` line) and its serialized form. */
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
  /**
   * False when `afterEventId` named a position this broker cannot replay from completely (another
   * broker's event, or one its ring has let go of): the subscriber should refetch the REST history.
   */
  readonly replayComplete: boolean;
  unsubscribe(): void;
}

/** What became of a peer's event. */
export type ForeignEventOutcome = "delivered" | "duplicate" | "no_subscribers" | "malformed";

export type RoomBroadcastHook = (scope: ProjectRoomScope, serialized: string, sourceKey: string | undefined) => void;

interface RetainedEvent {
  sequence: number;
  /** Handed to every subscriber as it is: fan-out allocates nothing per subscriber. */
  delivery: RoomEventDelivery;
  bytes: number;
  createdAt: number;
  room: Room;
  /** Gone from its room (room cap or room eviction); still in the global order until compacted. */
  removed: boolean;
}

interface Subscription {
  room: Room;
  listener: RoomEventListener;
  pending: RoomEventDelivery[];
  draining: boolean;
  ended: boolean;
}

interface Room {
  key: string;
  /** Ascending by sequence; every removal is of the oldest. */
  events: RetainedEvent[];
  /** The highest sequence this room may have had and let go of: replay after an older one is incomplete. */
  forgottenThrough: number;
  subscriptions: Set<Subscription>;
}

const positive = (value: number, name: string): number => {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive safe integer`);
  return value;
};

/**
 * Realtime events of project rooms within one process. `publish` keeps each event, serialized once and
 * immutable, in its room's replay ring and queues it to the room's subscribers; `subscribe` replays
 * what followed a `Last-Event-ID`, then follows live. Every structure is bounded: events per room,
 * their age, the rooms (least recently used dropped), all events and their bytes, the fact keys
 * remembered, and what waits for each subscriber, who is cut off with an end event beyond it: a
 * stalled client never holds memory nor delays anyone else. Peers' events come in through
 * {@link ingestForeignEvent} and only reach local subscribers.
 */
export class ProjectRoomEventBroker {
  private readonly maxEventsPerRoom: number;
  private readonly maxEventAgeMs: number;
  private readonly maxRooms: number;
  private readonly maxGlobalEvents: number;
  private readonly maxGlobalBytes: number;
  private readonly sourceKeyLimit: number;
  private readonly maxPendingPerSubscriber: number;
  private readonly now: () => number;
  /** Names this broker's ids: a `Last-Event-ID` of an earlier process or a peer is told apart. */
  private readonly epoch = randomBytes(6).toString("hex");
  /** In least-recently-used order (a use moves a room to the end). */
  private readonly rooms = new Map<string, Room>();
  /** Every retained event in publish order, so the oldest anywhere goes first; holes are compacted. */
  private order: RetainedEvent[] = [];
  private orderHead = 0;
  /** In insertion order, so the oldest is forgotten first. */
  private readonly seenSourceKeys = new Set<string>();
  private sequence = 0;
  private eventCount = 0;
  private byteCount = 0;
  private subscriberCount = 0;
  private broadcast: RoomBroadcastHook | undefined;
  private closed = false;

  constructor(options: ProjectRoomEventBrokerOptions = {}) {
    this.maxEventsPerRoom = positive(options.maxEventsPerRoom ?? ROOM_MAX_EVENTS_PER_ROOM, "maxEventsPerRoom");
    this.maxEventAgeMs = positive(options.maxEventAgeMs ?? ROOM_MAX_EVENT_AGE_MS, "maxEventAgeMs");
    this.maxRooms = positive(options.maxRooms ?? ROOM_MAX_ROOMS, "maxRooms");
    this.maxGlobalEvents = positive(options.maxGlobalEvents ?? ROOM_MAX_GLOBAL_EVENTS, "maxGlobalEvents");
    this.maxGlobalBytes = positive(options.maxGlobalBytes ?? ROOM_MAX_GLOBAL_BYTES, "maxGlobalBytes");
    this.sourceKeyLimit = positive(options.sourceKeyLimit ?? ROOM_SOURCE_KEY_LIMIT, "sourceKeyLimit");
    this.maxPendingPerSubscriber = positive(options.maxPendingPerSubscriber ?? ROOM_MAX_PENDING_PER_SUBSCRIBER, "maxPendingPerSubscriber");
    this.now = options.now ?? Date.now;
  }

  get activeSubscriberCount(): number {
    return this.subscriberCount;
  }

  get retainedEventCount(): number {
    return this.eventCount;
  }

  /** Exact UTF-8 bytes of every retained serialized event. */
  get retainedBytes(): number {
    return this.byteCount;
  }

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
   * Keeps the event in the room's ring and queues it to the room's subscribers. With a `sourceKey`
   * (a key of the fact the event tells, shared by every replica's copy of it) an already seen fact is
   * dropped: `undefined`, nothing kept, delivered or mirrored.
   */
  publish(scope: ProjectRoomScope, draft: ProjectRoomEventDraft, sourceKey?: string): ProjectRoomEvent | undefined {
    this.assertOpen();
    if (!isRoomScope(scope)) throw new TypeError("A room scope needs a non-empty tenantId, projectId and roomId");
    if (typeof draft?.type !== "string" || draft.type.length === 0) throw new TypeError("A room event needs a non-empty type");
    if (sourceKey !== undefined && this.seenSourceKeys.has(sourceKey)) return undefined;
    const createdAt = this.now();
    const sequence = this.sequence + 1;
    const event: ProjectRoomEvent = {
      id: roomEventId(this.epoch, sequence),
      type: draft.type,
      scope: { tenantId: scope.tenantId, projectId: scope.projectId, roomId: scope.roomId },
      data: draft.data ?? null,
      createdAt: new Date(createdAt).toISOString(),
    };
    // Serialized before any state changes: data JSON cannot hold (a BigInt) throws with nothing kept.
    const serialized = serializeRoomEvent(event);
    this.sequence = sequence;
    const room = this.useRoom(roomKey(event.scope));
    const delivery: RoomEventDelivery = Object.freeze({ id: event.id, serialized });
    const retained: RetainedEvent = { sequence, delivery, bytes: Buffer.byteLength(serialized), createdAt, room, removed: false };
    room.events.push(retained);
    this.order.push(retained);
    this.eventCount += 1;
    this.byteCount += retained.bytes;
    if (sourceKey !== undefined) this.rememberSourceKey(sourceKey);
    while (room.events.length > this.maxEventsPerRoom) this.forget(room.events[0]);
    this.prune();
    for (const subscription of [...room.subscriptions]) this.enqueue(subscription, delivery);
    try {
      this.broadcast?.(event.scope, serialized, sourceKey);
    } catch {
      // Best-effort by contract: local subscribers have the event, REST has the fact.
    }
    return event;
  }

  /**
   * Delivers a peer's event to this process's subscribers of its room, without keeping it in the ring
   * or taking a sequence (its id names the peer's broker). A fact already seen here is dropped.
   */
  ingestForeignEvent(serializedEvent: string, sourceKey?: string): ForeignEventOutcome {
    const event = typeof serializedEvent === "string" ? parseRoomEvent(serializedEvent) : undefined;
    if (!event) return "malformed";
    if (sourceKey !== undefined) {
      if (this.seenSourceKeys.has(sourceKey)) return "duplicate";
      this.rememberSourceKey(sourceKey);
    }
    const room = this.closed ? undefined : this.rooms.get(roomKey(event.scope));
    if (!room || room.subscriptions.size === 0) return "no_subscribers";
    this.touch(room);
    // Re-serialized: only the canonical one-line form reaches a stream.
    const delivery: RoomEventDelivery = Object.freeze({ id: event.id, serialized: serializeRoomEvent(event) });
    for (const subscription of [...room.subscriptions]) this.enqueue(subscription, delivery);
    return "delivered";
  }

  /** Replays the room's events after `afterEventId` (none without it), then follows live. */
  subscribe(scope: ProjectRoomScope, afterEventId: string | undefined, listener: RoomEventListener): RoomSubscription {
    this.assertOpen();
    if (!isRoomScope(scope)) throw new TypeError("A room scope needs a non-empty tenantId, projectId and roomId");
    this.prune();
    const room = this.useRoom(roomKey(scope));
    const subscription: Subscription = { room, listener, pending: [], draining: false, ended: false };
    let replayComplete = true;
    if (afterEventId !== undefined) {
      const position = parseRoomEventId(afterEventId);
      const after = position?.epoch === this.epoch ? position.sequence : undefined;
      replayComplete = after !== undefined && after >= room.forgottenThrough;
      if (after !== undefined) for (const retained of room.events) if (retained.sequence > after) this.enqueue(subscription, retained.delivery);
    }
    room.subscriptions.add(subscription);
    this.subscriberCount += 1;
    return {
      replayComplete,
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
    for (const room of this.rooms.values()) for (const subscription of [...room.subscriptions]) this.end(subscription, "broker_closed");
    this.rooms.clear();
    this.order = [];
    this.orderHead = 0;
    this.seenSourceKeys.clear();
    this.eventCount = 0;
    this.byteCount = 0;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("The room event broker is closed");
  }

  /** The room, now the most recently used; created (dropping the least recently used beyond the cap) when new. */
  private useRoom(key: string): Room {
    const existing = this.rooms.get(key);
    if (existing) {
      this.touch(existing);
      return existing;
    }
    // Whatever this broker published before may have been this room's, in an earlier life.
    const room: Room = { key, events: [], forgottenThrough: this.sequence, subscriptions: new Set() };
    this.rooms.set(key, room);
    if (this.rooms.size > this.maxRooms) this.evictRoom(room);
    return room;
  }

  private touch(room: Room): void {
    this.rooms.delete(room.key);
    this.rooms.set(room.key, room);
  }

  /** Drops the least recently used room other than `keep`, preferring one nobody follows. */
  private evictRoom(keep: Room): void {
    let victim: Room | undefined;
    for (const room of this.rooms.values()) {
      if (room === keep) continue;
      victim ??= room;
      if (room.subscriptions.size === 0) {
        victim = room;
        break;
      }
    }
    if (!victim) return;
    for (const retained of [...victim.events]) this.forget(retained);
    for (const subscription of [...victim.subscriptions]) this.end(subscription, "room_evicted");
    this.rooms.delete(victim.key);
  }

  /** Takes the oldest event of its room out of the ring. */
  private forget(retained: RetainedEvent): void {
    if (retained.removed) return;
    retained.removed = true;
    const { room } = retained;
    room.events.shift();
    room.forgottenThrough = Math.max(room.forgottenThrough, retained.sequence);
    this.eventCount -= 1;
    this.byteCount -= retained.bytes;
  }

  /** Lets go of the oldest events anywhere while any is too old or the ring holds too many or too much. */
  private prune(): void {
    const oldestKept = this.now() - this.maxEventAgeMs;
    while (this.orderHead < this.order.length) {
      const oldest = this.order[this.orderHead];
      const over = this.eventCount > this.maxGlobalEvents || this.byteCount > this.maxGlobalBytes;
      if (!oldest.removed && !over && oldest.createdAt > oldestKept) break;
      this.forget(oldest);
      this.orderHead += 1;
    }
    // Holes (events a room cap or eviction took) and the consumed head never outgrow the live events.
    if (this.order.length > 2 * this.eventCount + 1024) {
      this.order = this.order.slice(this.orderHead).filter((retained) => !retained.removed);
      this.orderHead = 0;
    }
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
    if (subscription.room.subscriptions.delete(subscription)) this.subscriberCount -= 1;
  }
}
