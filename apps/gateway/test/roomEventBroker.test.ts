// The process-local room event broker: live delivery to a room's subscribers, its bounds (fact keys
// remembered, what waits for a subscriber) and peers' events. It keeps no events: replay is the
// message store's (followRoom.test.ts).
import { describe, expect, it } from "vitest";
import { ProjectRoomEventBroker, type RoomEventListener, type RoomSubscriptionEndReason } from "../src/rooms/projectRoomEventBroker";
import { type ProjectRoomEvent, messageCreatedEvent, serializeRoomEvent } from "../src/rooms/roomEvent";

const room = (roomId = "r", tenantId = "t") => ({ tenantId, projectId: "p", roomId });
/** An event as subscribers and peers read it. */
const wire = (event: ProjectRoomEvent) => JSON.parse(serializeRoomEvent(event)) as Record<string, unknown>;
const say = (data: unknown) => ({ type: "task.status", data });

/** Lets queued deliveries run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A listener that records what it receives. */
function recorder(): RoomEventListener & { events: Record<string, unknown>[]; ids: string[]; data: unknown[]; ends: RoomSubscriptionEndReason[] } {
  const events: Record<string, unknown>[] = [];
  const ids: string[] = [];
  const ends: RoomSubscriptionEndReason[] = [];
  return {
    events,
    ids,
    ends,
    get data() {
      return events.map((event) => event.data);
    },
    event: ({ id, serialized }) => {
      ids.push(id);
      events.push(JSON.parse(serialized) as Record<string, unknown>);
    },
    end: (reason) => void ends.push(reason),
  };
}

describe("ProjectRoomEventBroker", () => {
  it("delivers a publish to the room's subscribers only, as one immutable serialized event", async () => {
    const broker = new ProjectRoomEventBroker();
    const [here, elsewhere, otherTenant] = [recorder(), recorder(), recorder()];
    broker.subscribe(room(), here);
    broker.subscribe(room("other"), elsewhere);
    broker.subscribe(room("r", "t2"), otherTenant);
    const published = broker.publish(room(), say({ text: "hi" }))!;
    expect(published).toMatchObject({ type: "task.status", scope: room(), data: { text: "hi" } });
    expect(published.id).toMatch(/^[a-z0-9]+-1$/);
    // Changing what publish returned changes nothing kept.
    (published.data as { text: string }).text = "changed";
    await settle();
    expect(here.events).toEqual([{ ...wire(published), data: { text: "hi" } }]);
    expect(elsewhere.events).toEqual([]);
    expect(otherTenant.events).toEqual([]);
    expect(here.ids).toEqual([published.id]);
  });

  it("publishes a message's event under the id its publisher gave it: the message's sequence", async () => {
    const broker = new ProjectRoomEventBroker();
    const listener = recorder();
    broker.subscribe(room(), listener);
    const message = { ...room(), id: "m-7", sequence: 7, authorType: "user" as const, authorId: "ada", content: "hi", createdAt: new Date(0) };
    expect(broker.publishEvent(messageCreatedEvent(message), message.id)).toMatchObject({ id: "7", type: "message.created" });
    expect(broker.publishEvent(messageCreatedEvent(message), message.id)).toBeUndefined();
    await settle();
    expect(listener.ids).toEqual(["7"]);
    expect(listener.events).toEqual([
      {
        id: "7",
        type: "message.created",
        scope: { tenant_id: "t", project_id: "p", room_id: "r" },
        data: { id: "m-7", tenant_id: "t", project_id: "p", room_id: "r", sequence: 7, author_type: "user", author_id: "ada", content: "hi", created_at: "1970-01-01T00:00:00.000Z" },
        created_at: "1970-01-01T00:00:00.000Z",
      },
    ]);
  });

  it("lets go of a room with its last subscriber", () => {
    const broker = new ProjectRoomEventBroker();
    const [first, second] = [broker.subscribe(room(), recorder()), broker.subscribe(room(), recorder())];
    broker.publish(room("nobody follows"), say(1));
    expect(broker.roomCount).toBe(1);
    first.unsubscribe();
    expect(broker.roomCount).toBe(1);
    second.unsubscribe();
    expect(broker.roomCount).toBe(0);
    expect(broker.activeSubscriberCount).toBe(0);
  });

  it("cuts off a slow subscriber with an end event: it never delays the others nor holds more than its bound", async () => {
    const broker = new ProjectRoomEventBroker({ maxPendingPerSubscriber: 50 });
    const fast = recorder();
    let slowTook = 0;
    const slowEnds: RoomSubscriptionEndReason[] = [];
    // Takes one event, then never finishes with it (a client that stopped reading).
    broker.subscribe(room(), { event: () => ((slowTook += 1), new Promise<void>(() => {})), end: (reason) => void slowEnds.push(reason) });
    broker.subscribe(room(), fast);
    let maxPending = 0;
    for (let n = 0; n < 500; n += 1) {
      broker.publish(room(), say(n));
      maxPending = Math.max(maxPending, broker.pendingDeliveries);
      if (n % 10 === 0) await settle();
    }
    await settle();
    expect(fast.data).toEqual(Array.from({ length: 500 }, (_, n) => n));
    expect(slowEnds).toEqual(["slow_subscriber"]);
    expect(slowTook).toBe(1);
    // The slow one's queue plus what the fast one had not yet taken between settles.
    expect(maxPending).toBeLessThanOrEqual(50 + 10);
    expect(broker.activeSubscriberCount).toBe(1);
    expect(broker.pendingDeliveries).toBe(0);
  });

  it("ends a subscriber whose listener throws, and no one else", async () => {
    const broker = new ProjectRoomEventBroker();
    const ends: RoomSubscriptionEndReason[] = [];
    const fine = recorder();
    broker.subscribe(room(), {
      event: () => {
        throw new Error("broken client");
      },
      end: (reason) => void ends.push(reason),
    });
    broker.subscribe(room(), fine);
    broker.publish(room(), say(1));
    broker.publish(room(), say(2));
    await settle();
    expect(ends).toEqual(["listener_failed"]);
    expect(fine.data).toEqual([1, 2]);
  });

  it("drops a fact seen already: a second publish or a peer's copy of the same source key", async () => {
    const broker = new ProjectRoomEventBroker();
    const listener = recorder();
    broker.subscribe(room(), listener);
    expect(broker.publish(room(), say("fact"), "message-1")).toBeDefined();
    expect(broker.publish(room(), say("fact again"), "message-1")).toBeUndefined();
    const peer = new ProjectRoomEventBroker();
    const peerCopy = serializeRoomEvent(peer.publish(room(), say("peer's copy"), "message-1")!);
    expect(broker.ingestForeignEvent(peerCopy, "message-1")).toBe("duplicate");
    // A peer's fact first, then the same fact published here: delivered once.
    const fromPeer = serializeRoomEvent(peer.publish(room(), say("from peer"), "message-2")!);
    expect(broker.ingestForeignEvent(fromPeer, "message-2")).toBe("delivered");
    expect(broker.publish(room(), say("here too"), "message-2")).toBeUndefined();
    await settle();
    expect(listener.data).toEqual(["fact", "from peer"]);
  });

  it("remembers at most sourceKeyLimit fact keys, forgetting the oldest first", () => {
    const broker = new ProjectRoomEventBroker({ sourceKeyLimit: 3 });
    for (const key of ["k1", "k2", "k3", "k4"]) broker.publish(room(), say(key), key);
    expect(broker.publish(room(), say("k2 again"), "k2")).toBeUndefined();
    expect(broker.publish(room(), say("k4 again"), "k4")).toBeUndefined();
    expect(broker.publish(room(), say("k1 again"), "k1")).toBeDefined();
  });

  it("delivers a peer's event to local subscribers without taking a sequence", async () => {
    const [broker, peer] = [new ProjectRoomEventBroker(), new ProjectRoomEventBroker()];
    const local = broker.publish(room(), say("local"))!;
    expect(broker.ingestForeignEvent(serializeRoomEvent(peer.publish(room(), say("nobody listens"))!))).toBe("no_subscribers");
    const listener = recorder();
    broker.subscribe(room(), listener);
    const foreign = peer.publish(room(), say("foreign"))!;
    // A pretty-printed copy: only the canonical one-line form reaches a stream.
    expect(broker.ingestForeignEvent(JSON.stringify(wire(foreign), null, 2))).toBe("delivered");
    expect(broker.publish(room(), say("next"))!.id).toBe(local.id.replace(/-1$/, "-2"));
    await settle();
    expect(listener.events[0]).toEqual(wire(foreign));
    expect(listener.data).toEqual(["foreign", "next"]);
  });

  it.each([
    ["no JSON", "{"],
    ["no object", "42"],
    ["an event without an id", JSON.stringify({ type: "x", scope: { tenant_id: "t", project_id: "p", room_id: "r" }, data: 1, created_at: "now" })],
    ["an event with a bad scope", JSON.stringify({ id: "abc-1", type: "x", scope: { tenant_id: "t" }, data: 1, created_at: "now" })],
    ["an event without a type", JSON.stringify({ id: "abc-1", scope: { tenant_id: "t", project_id: "p", room_id: "r" }, data: 1, created_at: "now" })],
    ["an event of camelCase keys (no longer the wire form)", JSON.stringify({ id: "abc-1", type: "x", scope: room(), data: 1, createdAt: "now" })],
  ])("ignores a peer's payload that is %s", async (_label, serialized) => {
    const broker = new ProjectRoomEventBroker();
    const listener = recorder();
    broker.subscribe(room(), listener);
    expect(broker.ingestForeignEvent(serialized)).toBe("malformed");
    await settle();
    expect(listener.events).toEqual([]);
  });

  it("mirrors each local publish through the broadcast hook, never a peer's; a failing hook fails nothing", async () => {
    const broker = new ProjectRoomEventBroker();
    const mirrored: unknown[] = [];
    broker.setBroadcastHook((scope, serialized, sourceKey) => void mirrored.push({ scope, event: JSON.parse(serialized), sourceKey }));
    const event = broker.publish(room(), say(1), "k")!;
    broker.ingestForeignEvent(serializeRoomEvent(new ProjectRoomEventBroker().publish(room(), say("peer"))!));
    expect(mirrored).toEqual([{ scope: room(), event: wire(event), sourceKey: "k" }]);
    broker.setBroadcastHook(() => {
      throw new Error("outbox down");
    });
    expect(broker.publish(room(), say(2))).toBeDefined();
  });

  it("refuses bad input before taking a sequence", () => {
    const broker = new ProjectRoomEventBroker();
    expect(() => broker.publish({ ...room(), roomId: "" }, say(1))).toThrow(TypeError);
    expect(() => broker.publish(room(), { type: "" })).toThrow(TypeError);
    expect(() => broker.publish(room(), say(10n))).toThrow(TypeError);
    expect(broker.publish(room(), say(1))!.id).toMatch(/-1$/);
    expect(() => new ProjectRoomEventBroker({ maxPendingPerSubscriber: 0 })).toThrow(RangeError);
  });

  it("close ends every subscription, lets go of everything and refuses further use", async () => {
    const broker = new ProjectRoomEventBroker();
    const listener = recorder();
    broker.subscribe(room(), listener);
    broker.publish(room(), say(1));
    broker.close();
    await settle();
    expect(listener.ends).toEqual(["broker_closed"]);
    expect(broker.activeSubscriberCount).toBe(0);
    expect(() => broker.publish(room(), say(2))).toThrow(/closed/);
    expect(() => broker.subscribe(room(), recorder())).toThrow(/closed/);
    expect(broker.ingestForeignEvent(serializeRoomEvent(new ProjectRoomEventBroker().publish(room(), say(3))!))).toBe("no_subscribers");
  });
});
