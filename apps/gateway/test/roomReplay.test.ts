// A room subscriber that reconnects with Last-Event-ID, on two gateways on one PostgreSQL database:
// whichever replica it reconnects to, it is replayed every message it missed (its peers' too), in
// sequence, once, then follows live, with no replay_incomplete notice.
import { type SseEvent, type SseFollower, type TestDatabase, eventually, followSse } from "@axiom-lattice/testing";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayContext } from "../src/context/gatewayContext";
import { buildTestGateway, createMigratedTestDatabase } from "./support";

interface Replica {
  app: FastifyInstance;
  context: GatewayContext;
  url: string;
}

const ROOM = "/api/projects/p/rooms/r";
let database: TestDatabase;
const replicas: Replica[] = [];
const streams: SseFollower[] = [];

async function replica(replicaId: string): Promise<Replica> {
  const { app, context } = await buildTestGateway({ AXIOM_REPLICA_ID: replicaId, DATABASE_URL: database.url }, { started: true });
  const started = { app, context, url: await app.listen({ port: 0, host: "127.0.0.1" }) };
  replicas.push(started);
  return started;
}

async function post(on: Replica, url: string, payload: unknown) {
  const response = await on.app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
  expect(response.statusCode, response.body).toBe(201);
}

async function follow(on: Replica, lastEventId?: string) {
  const stream = await followSse(`${on.url}${ROOM}/events`, lastEventId === undefined ? {} : { "last-event-id": lastEventId });
  streams.push(stream);
  return stream;
}

const contents = (events: SseEvent[]) => events.filter((event) => event.type === "message.created").map((event) => (event.data as { content: string }).content);

describe("a room subscriber reconnecting with Last-Event-ID", () => {
  let x0: Replica;
  let x1: Replica;
  beforeAll(async () => {
    database = await createMigratedTestDatabase();
    x0 = await replica("replay-x0");
    x1 = await replica("replay-x1");
    await post(x0, "/api/projects", { id: "p", name: "P" });
    await post(x0, "/api/projects/p/rooms", { id: "r", name: "R" });
  });
  afterAll(async () => {
    await Promise.all(streams.map((stream) => stream.close()));
    for (const { app, context } of replicas) {
      await app.close();
      await context.close();
    }
    await database?.drop();
  });

  it("is replayed its peers' messages too, on the same replica and on another, in sequence and once", { timeout: 30_000 }, async () => {
    const live = await follow(x0);
    await post(x0, `${ROOM}/messages`, { content: "m1" });
    await eventually("m1", () => contents(live.events).includes("m1"));
    const m1 = live.events.find((event) => event.type === "message.created")!;
    expect(m1.id).toBeDefined();
    await live.close();

    await post(x1, `${ROOM}/messages`, { content: "m2" });
    await post(x0, `${ROOM}/messages`, { content: "m3" });
    await post(x1, `${ROOM}/messages`, { content: "m4" });
    const resumed = [await follow(x0, m1.id), await follow(x1, m1.id)];
    for (const stream of resumed) await eventually("the replay of m2..m4", () => contents(stream.events).includes("m4"), { timeoutMs: 5_000 });
    await post(x1, `${ROOM}/messages`, { content: "m5" });
    await post(x0, `${ROOM}/messages`, { content: "m6" });
    for (const stream of resumed) {
      await eventually("m6", () => contents(stream.events).includes("m6"));
      expect(stream.events.map((event) => event.type)).not.toContain("stream.replay_incomplete");
      expect(contents(stream.events)).toEqual(["m2", "m3", "m4", "m5", "m6"]);
    }
  });
});
