// Room events across two gateways on one PostgreSQL database: a publish on A reaches B's subscribers
// once through the outbox, one fact published on both arrives once everywhere, and payloads that are
// no room event are ignored and counted in /metrics.
import { ROOM_EVENT_TOPIC } from "@axiom-lattice/protocols";
import { type TestDatabase, eventually } from "@axiom-lattice/testing";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayContext } from "../src/context/gatewayContext";
import { type ProjectRoomEvent, parseRoomEvent } from "../src/rooms/roomEvent";
import { parseExposition, valueOf } from "./prometheus";
import { buildTestGateway, createMigratedTestDatabase } from "./support";

interface Replica {
  app: FastifyInstance;
  context: GatewayContext;
  ingested(outcome: string): Promise<number>;
  deliveries(outcome: string): Promise<number>;
}

let database: TestDatabase;
const replicas: Replica[] = [];

async function replica(replicaId: string): Promise<Replica> {
  const { app, context } = await buildTestGateway({ AXIOM_REPLICA_ID: replicaId, DATABASE_URL: database.url }, { started: true });
  const counted = async (name: string, outcome: string) =>
    valueOf(parseExposition((await app.inject({ method: "GET", url: "/metrics" })).body), name, { outcome });
  const started: Replica = {
    app,
    context,
    ingested: (outcome) => counted("lattice_room_events_ingested_total", outcome),
    deliveries: (outcome) => counted("lattice_outbox_deliveries_total", outcome),
  };
  replicas.push(started);
  return started;
}

/** Everything the subscriber receives on `replica` for the room. */
function follow(replica: Replica, roomId: string, tenantId = "t") {
  const received: ProjectRoomEvent[] = [];
  replica.context.roomEvents.subscribe({ tenantId, projectId: "p", roomId }, {
    event: ({ serialized }) => void received.push(parseRoomEvent(serialized)!),
    end: () => {},
  });
  return received;
}

const scope = (roomId: string) => ({ tenantId: "t", projectId: "p", roomId });
const says = (text: string) => ({ type: "message.created", data: { text } });

describe("room events across replicas", () => {
  let a: Replica;
  let b: Replica;
  beforeAll(async () => {
    database = await createMigratedTestDatabase();
    a = await replica("rooms-a");
    b = await replica("rooms-b");
  });
  afterAll(async () => {
    for (const { app, context } of replicas) {
      await app.close();
      await context.close();
    }
    await database.drop();
  });

  it("delivers an event published on A to B's subscribers of the room exactly once, and to no other room or tenant", async () => {
    const [onA, onB, otherRoom, otherTenant] = [follow(a, "r1"), follow(b, "r1"), follow(b, "r2"), follow(b, "r1", "t2")];
    const event = a.context.roomEvents.publish(scope("r1"), says("hello"), "fact-1")!;
    await eventually("B's subscriber to receive A's event", () => onB.length === 1);
    expect(onB).toEqual([event]);
    // A later event overtakes nothing: whatever B got, it got once.
    const next = a.context.roomEvents.publish(scope("r1"), says("again"))!;
    await eventually("B's subscriber to receive the next event", () => onB.length === 2);
    expect(onB).toEqual([event, next]);
    expect(onA).toEqual([event, next]);
    expect(otherRoom).toEqual([]);
    expect(otherTenant).toEqual([]);
  });

  it("delivers one fact published on both replicas at once to every subscriber once", async () => {
    const [onA, onB] = [follow(a, "r3"), follow(b, "r3")];
    const duplicatesBefore = (await a.ingested("duplicate")) + (await b.ingested("duplicate"));
    // Both publish before either's copy can arrive: each delivers locally, then drops the peer's copy.
    const fromA = a.context.roomEvents.publish(scope("r3"), says("the fact, told by A"), "fact-3");
    const fromB = b.context.roomEvents.publish(scope("r3"), says("the fact, told by B"), "fact-3");
    expect(fromA && fromB).toBeTruthy();
    await eventually("both peers' copies to arrive as duplicates", async () => (await a.ingested("duplicate")) + (await b.ingested("duplicate")) === duplicatesBefore + 2);
    expect(onA).toEqual([fromA]);
    expect(onB).toEqual([fromB]);

    // Once B has heard of a fact from A, B publishing it again changes nothing.
    const later = a.context.roomEvents.publish(scope("r3"), says("later fact"), "fact-4")!;
    await eventually("B to receive the later fact", () => onB.length === 2);
    expect(b.context.roomEvents.publish(scope("r3"), says("later fact, again"), "fact-4")).toBeUndefined();
    expect(onB).toEqual([fromB, later]);
  });

  it("ignores outbox payloads that are no room event and counts them", async () => {
    const received = follow(b, "r4");
    const malformedBefore = await b.ingested("malformed");
    const failedBefore = await b.deliveries("failed");
    // Untyped, as a peer's JSON may be: the topic's parser refuses the last two, the broker the first two.
    const topic: string = ROOM_EVENT_TOPIC;
    for (const payload of [{ scope: scope("r4"), serialized: "{" }, { scope: scope("r4"), serialized: JSON.stringify(says("no id")) }, { other: 1 }, "text"]) {
      await a.context.stores.outbox.append({ topic, payload, originReplicaId: "rooms-a" });
    }
    // One good event after them: once it arrived, the four before it were passed.
    const good = a.context.roomEvents.publish(scope("r4"), says("fine"))!;
    await eventually("the good event to arrive", () => received.length === 1);
    expect(received).toEqual([good]);
    expect((await b.ingested("malformed")) - malformedBefore).toBe(2);
    expect((await b.deliveries("failed")) - failedBefore).toBe(2);
  });
});
