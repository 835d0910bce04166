// The process-local room event broker: live delivery and replay, every bound (events per room, age,
// rooms, global events and bytes, fact keys, what waits for a subscriber) and peers' events.
import { describe, expect, it } from "vitest";
import { ProjectRoomEventBroker, type ProjectRoomEventBrokerOptions, type RoomEventListener, type RoomSubscriptionEndReason } from "../src/rooms/projectRoomEventBroker";
import type { ProjectRoomEvent } from "../src/rooms/roomEvent";

const room = (roomId = "r", tenantId = "t") => ({ tenantId, projectId: "p", roomId });
const say = (data: unknown) => ({ type: "message.created", data });

/** Lets queued deliveries run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A listener that records what it receives. */
function recorder(): RoomEventListener & { events: ProjectRoomEvent[]; data: unknown[]; ends: RoomSubscriptionEndReason[] } {
  const events: ProjectRoomEvent[] = [];
  const ends: RoomSubscriptionEndReason[] = [];
  return {
    events,
    ends,
    get data() {
      return events.map((event) => event.data);
    },
    event: ({ serialized }) => void events.push(JSON.parse(serialized) as ProjectRoomEvent),
    end: (reason) => void ends.push(reason),
  };
}

/** What a subscriber resuming after `afterEventId` gets replayed. */
async function replayed(broker: ProjectRoomEventBroker, scope: ReturnType<typeof room>, afterEventId: string) {
  const listener = recorder();
  const subscription = broker.subscribe(scope, afterEventId, listener);
  await settle();
  subscription.unsubscribe();
  return { data: listener.data, complete: subscription.replayComplete };
}

function clockedBroker(options: ProjectRoomEventBrokerOptions = {}) {
  const clock = { now: 1_000_000 };
  return { clock, broker: new ProjectRoomEventBroker({ ...options, now: () => clock.now }) };
}

describe("ProjectRoomEventBroker", () => {
  it("delivers a publish to the room's subscribers only, as one immutable serialized event", async () => {
    const broker = new ProjectRoomEventBroker();
    const [here, elsewhere, otherTenant] = [recorder(), recorder(), recorder()];
    broker.subscribe(room(), undefined, here);
    broker.subscribe(room("other"), undefined, elsewhere);
    broker.subscribe(room("r", "t2"), undefined, otherTenant);
    const published = broker.publish(room(), say({ text: "hi" }))!;
    expect(published).toMatchObject({ type: "message.created", scope: room(), data: { text: "hi" } });
    expect(published.id).toMatch(/^[a-z0-9]+-1$/);
    // Changing what publish returned changes nothing kept.
    (published.data as { text: string }).text = "changed";
    await settle();
    expect(here.events).toEqual([{ ...published, data: { text: "hi" } }]);
    expect(elsewhere.events).toEqual([]);
    expect(otherTenant.events).toEqual([]);
    expect((await replayed(broker, room(), `${published.id.split("-")[0]}-0`)).data).toEqual([{ text: "hi" }]);
  });

  it("replays what followed Last-Event-ID, then follows live", async () => {
    const broker = new ProjectRoomEventBroker();
    const ids = [1, 2, 3].map((n) => broker.publish(room(), say(n))!.id);
    const listener = recorder();
    const subscription = broker.subscribe(room(), ids[0], listener);
    expect(subscription.replayComplete).toBe(true);
    broker.publish(room(), say(4));
    await settle();
    expect(listener.data).toEqual([2, 3, 4]);
    expect((await replayed(broker, room(), ids[2])).data).toEqual([4]);
  });

  it("says a replay is incomplete for another broker's id, replaying nothing", async () => {
    const [broker, peer] = [new ProjectRoomEventBroker(), new ProjectRoomEventBroker()];
    broker.publish(room(), say(1));
    const foreign = peer.publish(room(), say("peer"))!.id;
    expect(await replayed(broker, room(), foreign)).toEqual({ data: [], complete: false });
    expect(await replayed(broker, room(), "not-an-id")).toEqual({ data: [], complete: false });
  });

  it("keeps the newest events of a room, forgetting the oldest first; a replay from before them is incomplete", async () => {
    const broker = new ProjectRoomEventBroker({ maxEventsPerRoom: 3 });
    const ids = [1, 2, 3, 4, 5].map((n) => broker.publish(room(), say(n))!.id);
    broker.publish(room("other"), say("x"));
    expect(broker.retainedEventCount).toBe(4);
    expect(await replayed(broker, room(), ids[2])).toEqual({ data: [4, 5], complete: true });
    expect(await replayed(broker, room(), ids[0])).toEqual({ data: [3, 4, 5], complete: false });
  });

  it("forgets events older than the age bound (10 minutes by default)", async () => {
    const { clock, broker } = clockedBroker();
    const first = broker.publish(room(), say("old"))!.id;
    clock.now += 5 * 60_000;
    broker.publish(room("other"), say("middle"));
    clock.now += 5 * 60_000 + 1;
    expect(await replayed(broker, room(), first.replace(/-\d+$/, "-0"))).toEqual({ data: [], complete: false });
    expect(broker.retainedEventCount).toBe(1);
    clock.now += 5 * 60_000;
    broker.publish(room(), say("new"));
    expect(broker.retainedEventCount).toBe(1);
    expect((await replayed(broker, room(), first)).data).toEqual(["new"]);
  });

  it("keeps at most maxRooms rooms, dropping the least recently used, one nobody follows first", async () => {
    const broker = new ProjectRoomEventBroker({ maxRooms: 3 });
    const followed = recorder();
    const aId = broker.publish(room("a"), say("a"))!.id;
    broker.subscribe(room("a"), undefined, followed);
    broker.publish(room("b"), say("b"));
    broker.publish(room("c"), say("c"));
    broker.publish(room("b"), say("b2"));
    // a is least recently used but followed: c (unfollowed, used before b) goes.
    broker.publish(room("d"), say("d"));
    expect(broker.roomCount).toBe(3);
    expect(broker.retainedEventCount).toBe(4);
    // Now every room but the newest is followed: the least recently used (a) goes, its subscriber told.
    const [followsB, followsD] = [recorder(), recorder()];
    broker.subscribe(room("b"), undefined, followsB);
    broker.subscribe(room("d"), undefined, followsD);
    broker.publish(room("e"), say("e"));
    await settle();
    expect(followed.ends).toEqual(["room_evicted"]);
    expect(followsB.ends).toEqual([]);
    expect(broker.activeSubscriberCount).toBe(2);
    expect(await replayed(broker, room("a"), aId.replace(/-\d+$/, "-0"))).toEqual({ data: [], complete: false });
  });

  it("keeps at most maxGlobalEvents events across rooms, forgetting the oldest anywhere", async () => {
    const broker = new ProjectRoomEventBroker({ maxGlobalEvents: 3 });
    const first = broker.publish(room("a"), say("a1"))!.id;
    broker.publish(room("b"), say("b1"));
    broker.publish(room("a"), say("a2"));
    broker.publish(room("b"), say("b2"));
    expect(broker.retainedEventCount).toBe(3);
    expect(await replayed(broker, room("a"), first.replace(/-\d+$/, "-0"))).toEqual({ data: ["a2"], complete: false });
    expect((await replayed(broker, room("b"), first)).data).toEqual(["b1", "b2"]);
  });

  it("keeps the serialized events within maxGlobalBytes, counting UTF-8 bytes exactly", async () => {
    const { broker } = clockedBroker({ maxGlobalBytes: 1_000 });
    const first = broker.publish(room(), say("é".repeat(100)))!;
    const size = broker.retainedBytes;
    expect(size).toBe(Buffer.byteLength(JSON.stringify(first)));
    // Ids up to -9: every event has the same size.
    for (let n = 0; n < 8; n += 1) broker.publish(room(), say("é".repeat(100)));
    expect(broker.retainedBytes).toBeLessThanOrEqual(1_000);
    expect(broker.retainedBytes).toBe(broker.retainedEventCount * size);
    expect(broker.retainedEventCount).toBe(Math.floor(1_000 / size));
    // One event beyond the bound on its own is delivered, never kept.
    const listener = recorder();
    broker.subscribe(room(), undefined, listener);
    broker.publish(room(), say("x".repeat(2_000)));
    await settle();
    expect(listener.events).toHaveLength(1);
    expect(broker.retainedBytes).toBe(0);
  });

  it("keeps its publish order bounded while a small room churns (holes are compacted)", () => {
    const broker = new ProjectRoomEventBroker({ maxEventsPerRoom: 2 });
    for (let n = 0; n < 20_000; n += 1) broker.publish(room(), say(n));
    expect(broker.retainedEventCount).toBe(2);
    const order = (broker as unknown as { order: unknown[]; orderHead: number }).order;
    expect(order.length).toBeLessThan(2_000);
  });

  it("cuts off a slow subscriber with an end event: it never delays the others nor holds more than its bound", async () => {
    const broker = new ProjectRoomEventBroker({ maxPendingPerSubscriber: 50 });
    const fast = recorder();
    let slowTook = 0;
    const slowEnds: RoomSubscriptionEndReason[] = [];
    // Takes one event, then never finishes with it (a client that stopped reading).
    broker.subscribe(room(), undefined, { event: () => ((slowTook += 1), new Promise<void>(() => {})), end: (reason) => void slowEnds.push(reason) });
    broker.subscribe(room(), undefined, fast);
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
    broker.subscribe(room(), undefined, {
      event: () => {
        throw new Error("broken client");
      },
      end: (reason) => void ends.push(reason),
    });
    broker.subscribe(room(), undefined, fine);
    broker.publish(room(), say(1));
    broker.publish(room(), say(2));
    await settle();
    expect(ends).toEqual(["listener_failed"]);
    expect(fine.data).toEqual([1, 2]);
  });

  it("drops a fact seen already: a second publish or a peer's copy of the same source key", async () => {
    const broker = new ProjectRoomEventBroker();
    const listener = recorder();
    broker.subscribe(room(), undefined, listener);
    expect(broker.publish(room(), say("fact"), "message-1")).toBeDefined();
    expect(broker.publish(room(), say("fact again"), "message-1")).toBeUndefined();
    const peer = new ProjectRoomEventBroker();
    const peerCopy = JSON.stringify(peer.publish(room(), say("peer's copy"), "message-1"));
    expect(broker.ingestForeignEvent(peerCopy, "message-1")).toBe("duplicate");
    // A peer's fact first, then the same fact published here: delivered once.
    const fromPeer = JSON.stringify(peer.publish(room(), say("from peer"), "message-2"));
    expect(broker.ingestForeignEvent(fromPeer, "message-2")).toBe("delivered");
    expect(broker.publish(room(), say("here too"), "message-2")).toBeUndefined();
    await settle();
    expect(listener.data).toEqual(["fact", "from peer"]);
    expect(broker.retainedEventCount).toBe(1);
  });

  it("remembers at most sourceKeyLimit fact keys, forgetting the oldest first", () => {
    const broker = new ProjectRoomEventBroker({ sourceKeyLimit: 3 });
    for (const key of ["k1", "k2", "k3", "k4"]) broker.publish(room(), say(key), key);
    expect(broker.publish(room(), say("k2 again"), "k2")).toBeUndefined();
    expect(broker.publish(room(), say("k4 again"), "k4")).toBeUndefined();
    expect(broker.publish(room(), say("k1 again"), "k1")).toBeDefined();
  });

  it("delivers a peer's event to local subscribers without keeping it or taking a sequence", async () => {
    const [broker, peer] = [new ProjectRoomEventBroker(), new ProjectRoomEventBroker()];
    const local = broker.publish(room(), say("local"))!;
    expect(broker.ingestForeignEvent(JSON.stringify(peer.publish(room(), say("nobody listens"))))).toBe("no_subscribers");
    const listener = recorder();
    broker.subscribe(room(), undefined, listener);
    const foreign = peer.publish(room(), say("foreign"))!;
    // A pretty-printed copy: only the canonical one-line form reaches a stream.
    expect(broker.ingestForeignEvent(JSON.stringify(foreign, null, 2))).toBe("delivered");
    expect(broker.publish(room(), say("next"))!.id).toBe(local.id.replace(/-1$/, "-2"));
    await settle();
    expect(listener.events[0]).toEqual(foreign);
    expect(listener.data).toEqual(["foreign", "next"]);
    expect(broker.retainedEventCount).toBe(2);
    expect((await replayed(broker, room(), local.id)).data).toEqual(["next"]);
  });

  it.each([
    ["no JSON", "{"],
    ["no object", "42"],
    ["an event without an id", JSON.stringify({ type: "x", scope: room(), data: 1, createdAt: "now" })],
    ["an event with a bad scope", JSON.stringify({ id: "abc-1", type: "x", scope: { tenantId: "t" }, data: 1, createdAt: "now" })],
    ["an event without a type", JSON.stringify({ id: "abc-1", scope: room(), data: 1, createdAt: "now" })],
  ])("ignores a peer's payload that is %s", async (_label, serialized) => {
    const broker = new ProjectRoomEventBroker();
    const listener = recorder();
    broker.subscribe(room(), undefined, listener);
    expect(broker.ingestForeignEvent(serialized)).toBe("malformed");
    await settle();
    expect(listener.events).toEqual([]);
  });

  it("mirrors each local publish through the broadcast hook, never a peer's; a failing hook fails nothing", async () => {
    const broker = new ProjectRoomEventBroker();
    const mirrored: unknown[] = [];
    broker.setBroadcastHook((scope, serialized, sourceKey) => void mirrored.push({ scope, event: JSON.parse(serialized), sourceKey }));
    const event = broker.publish(room(), say(1), "k")!;
    broker.ingestForeignEvent(JSON.stringify(new ProjectRoomEventBroker().publish(room(), say("peer"))));
    expect(mirrored).toEqual([{ scope: room(), event, sourceKey: "k" }]);
    broker.setBroadcastHook(() => {
      throw new Error("outbox down");
    });
    expect(broker.publish(room(), say(2))).toBeDefined();
  });

  it("refuses bad input before keeping anything", () => {
    const broker = new ProjectRoomEventBroker();
    expect(() => broker.publish({ ...room(), roomId: "" }, say(1))).toThrow(TypeError);
    expect(() => broker.publish(room(), { type: "" })).toThrow(TypeError);
    expect(() => broker.publish(room(), say(10n))).toThrow(TypeError);
    expect(broker.retainedEventCount).toBe(0);
    expect(broker.publish(room(), say(1))!.id).toMatch(/-1$/);
    expect(() => new ProjectRoomEventBroker({ maxRooms: 0 })).toThrow(RangeError);
  });

  it("close ends every subscription, lets go of everything and refuses further use", async () => {
    const broker = new ProjectRoomEventBroker();
    const listener = recorder();
    broker.subscribe(room(), undefined, listener);
    broker.publish(room(), say(1));
    broker.close();
    await settle();
    expect(listener.ends).toEqual(["broker_closed"]);
    expect(broker.retainedEventCount).toBe(0);
    expect(broker.activeSubscriberCount).toBe(0);
    expect(() => broker.publish(room(), say(2))).toThrow(/closed/);
    expect(() => broker.subscribe(room(), undefined, recorder())).toThrow(/closed/);
    expect(broker.ingestForeignEvent(JSON.stringify(new ProjectRoomEventBroker().publish(room(), say(3))))).toBe("no_subscribers");
  });
});
