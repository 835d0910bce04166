// Scenario 18: room subscribers on every replica reconnect with Last-Event-ID, to the same replica and
// to another, while messages are posted round-robin and a replica is killed (issue 21). Each ends with
// every message exactly once, in sequence, and no stream.replay_incomplete notice: a reconnect is
// replayed from the message store wherever it lands.
import { type SseEvent, type SseFollower, eventually, followSse } from "@axiom-lattice/testing";
import { afterEach, describe, expect, it } from "vitest";
import { tokenFor } from "../harness/auth";
import { call, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import type { Replica } from "../harness/replica";

const TENANT = { "x-tenant-id": "resume-tenant" };
const ROOM = "/api/projects/launch/rooms/general";
const MESSAGES = 60;
/** After these many posts every subscriber reconnects; after KILL_AT the last replica is killed. */
const RECONNECT_AT = new Set([10, 25, 40, 50]);
const KILL_AT = 30;

/** One client following the room across reconnects, as a browser's EventSource does. */
class ResumingSubscriber {
  private readonly connections: SseFollower[] = [];
  constructor(
    readonly name: string,
    /** Where it reconnects: its own replica, or the next live one. */
    readonly sameReplica: boolean,
  ) {}

  get events(): SseEvent[] {
    return this.connections.flatMap((connection) => connection.events);
  }

  get messages(): SseEvent[] {
    return this.events.filter((event) => event.type === "message.created");
  }

  /** Leaves its current stream, if any, and follows `replica`'s with the last message id it has. */
  async connect(replica: Replica): Promise<void> {
    await this.connections.at(-1)?.close();
    const lastEventId = this.messages.at(-1)?.id;
    const headers = { authorization: `Bearer ${await tokenFor(TENANT["x-tenant-id"])}`, ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }) };
    this.connections.push(await followSse(`${replica.url}${ROOM}/events`, headers));
  }

  close(): Promise<void> {
    return this.connections.at(-1)?.close() ?? Promise.resolve();
  }
}

const subscribers: ResumingSubscriber[] = [];
afterEach(async () => {
  await Promise.all(subscribers.splice(0).map((subscriber) => subscriber.close()));
});

describe("scenario 18: room subscribers resume on any replica through reconnects and a kill", () => {
  const cluster = useCluster();

  it("gives every subscriber every message exactly once, in sequence, with no replay_incomplete", { timeout: 120_000 }, async () => {
    const replicas = await cluster.start(3, { prefix: "resume" });
    await expectOk(call(replicas[0]!.url, "POST", "/api/projects", { id: "launch", name: "Launch" }, TENANT), 201);
    await expectOk(call(replicas[0]!.url, "POST", "/api/projects/launch/rooms", { id: "general", name: "General" }, TENANT), 201);
    const live = [...replicas];
    /** Where each subscriber is connected now. */
    const at = new Map<ResumingSubscriber, Replica>();
    for (const [index, replica] of replicas.entries()) {
      for (const sameReplica of [true, false]) {
        const subscriber = new ResumingSubscriber(`x${index}-${sameReplica ? "same" : "other"}`, sameReplica);
        subscribers.push(subscriber);
        await subscriber.connect(replica);
        at.set(subscriber, replica);
      }
    }
    const reconnect = (subscriber: ResumingSubscriber) => {
      const current = at.get(subscriber)!;
      const next = subscriber.sameReplica && live.includes(current) ? current : live[(live.indexOf(current) + 1) % live.length] ?? live[0]!;
      at.set(subscriber, next);
      return subscriber.connect(next);
    };

    /** Posts round-robin over the live replicas; a failed attempt is retried elsewhere under its key. */
    const post = async (n: number) => {
      for (let attempt = 0; ; attempt += 1) {
        const replica = live[(n + attempt) % live.length]!;
        const response = await call(replica.url, "POST", `${ROOM}/messages`, { content: `m${n}` }, { ...TENANT, "idempotency-key": `m${n}` }).catch(() => undefined);
        if (response?.status === 201 || response?.status === 200) return;
        if (attempt > 5) throw new Error(`m${n} could not be posted: ${response?.status} ${response?.text}`);
      }
    };

    for (let n = 1; n <= MESSAGES; n += 1) {
      // Reconnects race the posts: a stream is replayed while live events arrive.
      const reconnects = RECONNECT_AT.has(n) ? Promise.all(subscribers.map(reconnect)) : Promise.resolve();
      if (n === KILL_AT) {
        const victim = live.pop()!;
        await victim.stop("SIGKILL");
        // Its subscribers find their stream gone and reconnect to a survivor.
        await Promise.all(subscribers.filter((subscriber) => at.get(subscriber) === victim).map(reconnect));
      }
      await post(n);
      await reconnects;
    }

    const expected = Array.from({ length: MESSAGES }, (_, index) => `m${index + 1}`);
    for (const subscriber of subscribers) {
      await eventually(`${subscriber.name}: all ${MESSAGES} messages`, () => subscriber.messages.length >= MESSAGES, { timeoutMs: 20_000 });
      expect(subscriber.messages.map((event) => (event.data as { content: string }).content), subscriber.name).toEqual(expected);
      expect(subscriber.messages.map((event) => event.id), subscriber.name).toEqual(expected.map((_, index) => String(index + 1)));
      expect(subscriber.events.filter((event) => event.type.startsWith("stream.")), subscriber.name).toEqual([]);
    }
  });
});
