import { type SseEvent, type SseFollower, eventually, followSse } from "@axiom-lattice/testing";
import { afterEach, describe, expect, it } from "vitest";
import { tokenFor } from "../harness/auth";
import { call, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";

const TENANT = { "x-tenant-id": "room-tenant" };
const OTHER = { "x-tenant-id": "room-other" };
const ROOM = "/api/projects/launch/rooms/general";

interface Message {
  id: string;
  content: string;
}

const streams: SseFollower[] = [];
afterEach(async () => {
  await Promise.all(streams.splice(0).map((stream) => stream.close()));
});

/** A room SSE subscriber on `baseUrl`, as tenant `headers` names. */
async function subscribe(baseUrl: string, headers: Record<string, string>, lastEventId?: string): Promise<SseFollower> {
  const authorization = `Bearer ${await tokenFor(headers["x-tenant-id"])}`;
  // The stream subscribes before it answers: once the head is here, every later post reaches it.
  const stream = await followSse(`${baseUrl}${ROOM}/events`, { authorization, ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }) });
  streams.push(stream);
  return stream;
}

const received = (stream: SseFollower): SseEvent[] => stream.ofType("message.created");
const messageOf = (event: SseEvent) => event.data as Message;
const contents = (stream: SseFollower) => received(stream).map((event) => messageOf(event).content);
const post = (baseUrl: string, content: string) => expectOk<{ id: string }>(call(baseUrl, "POST", `${ROOM}/messages`, { content }, TENANT), 201);

/** Waits until every stream has the sentinel: whatever came before it has arrived (events of a room keep their order per publisher). */
async function untilAll(streamsToWait: SseFollower[], sentinel: string) {
  for (const stream of streamsToWait) await eventually(`"${sentinel}"`, () => contents(stream).includes(sentinel), { timeoutMs: 20_000 });
}

describe("scenario 7: project room realtime across replicas", () => {
  const cluster = useCluster();

  it("delivers a message posted on A to B's subscriber once, dedupes one fact published on both, replays on A and B, and keeps tenants apart", async () => {
    const [a, b] = await cluster.start(2);
    for (const headers of [TENANT, OTHER]) {
      await expectOk(call(a.url, "POST", "/api/projects", { id: "launch", name: "Launch" }, headers), 201);
      await expectOk(call(a.url, "POST", "/api/projects/launch/rooms", { id: "general", name: "General" }, headers), 201);
    }
    const onA = await subscribe(a.url, TENANT);
    const onB = await subscribe(b.url, TENANT);
    // Another tenant's room of the same ids, followed on both replicas.
    const otherOnA = await subscribe(a.url, OTHER);
    const otherOnB = await subscribe(b.url, OTHER);

    // 1. Posted on A, received on B exactly once (and on A once).
    const first = await post(a.url, "hello from A");
    await post(a.url, "second from A");
    await untilAll([onA, onB], "second from A");
    expect(contents(onB)).toEqual(["hello from A", "second from A"]);
    expect(contents(onA)).toEqual(["hello from A", "second from A"]);
    expect(messageOf(received(onB)[0]).id).toBe(first.id);

    // 2. One fact published on both replicas: the same Idempotency-Key posted to A and B at once stores
    // one message, both replicas publish it (source key = the message id), every subscriber gets it once.
    const key = { "idempotency-key": "same-fact" };
    const posts = await Promise.all([a.url, b.url].map((url) => call(url, "POST", `${ROOM}/messages`, { content: "one fact" }, { ...TENANT, ...key })));
    expect(posts.map((response) => response.status).sort()).toEqual([200, 201]);
    const [onePost, otherPost] = posts.map((response) => response.json<{ id: string }>());
    expect(otherPost.id).toBe(onePost.id);
    await post(b.url, "after the fact");
    await post(a.url, "after the fact, from A");
    await untilAll([onA, onB], "after the fact");
    await untilAll([onA, onB], "after the fact, from A");
    for (const stream of [onA, onB]) {
      expect(received(stream).filter((event) => messageOf(event).id === onePost.id)).toHaveLength(1);
      expect(contents(stream).filter((content) => content === "after the fact")).toHaveLength(1);
    }

    // 3. Last-Event-ID replay from the history, on either replica: A's id of the first message resumes
    // after it on A and on B alike, the peer's messages included, then follows live, with no notice.
    const firstOnA = received(onA)[0];
    expect(firstOnA.id).toBe("1");
    const resumed = [await subscribe(a.url, TENANT, firstOnA.id), await subscribe(b.url, TENANT, firstOnA.id)];
    await post(b.url, "resumed live, from B");
    const after = ["second from A", "one fact", "after the fact", "after the fact, from A", "resumed live, from B"];
    for (const stream of resumed) {
      await untilAll([stream], "resumed live, from B");
      expect(contents(stream)).toEqual(after);
      expect(stream.events.filter((event) => event.type === "stream.replay_incomplete")).toEqual([]);
    }
    const history = await expectOk<{ messages: Array<{ content: string }> }>(call(b.url, "GET", `${ROOM}/messages`, undefined, TENANT));
    expect(history.messages.map((message) => message.content)).toEqual(["hello from A", ...after]);

    // 4. The other tenant's subscribers received nothing of it; its own message reaches only them.
    expect(otherOnA.events).toEqual([]);
    expect(otherOnB.events).toEqual([]);
    await expectOk(call(a.url, "POST", `${ROOM}/messages`, { content: "other tenant's" }, OTHER), 201);
    await untilAll([otherOnA, otherOnB], "other tenant's");
    expect(contents(otherOnB)).toEqual(["other tenant's"]);
    await post(a.url, "last");
    await untilAll([onB], "last");
    expect(contents(onB)).not.toContain("other tenant's");
    // And another tenant's stream of a room it does not have is a 404 on every replica.
    for (const url of [a.url, b.url]) expect((await call(url, "GET", `${ROOM}/events`, undefined, { "x-tenant-id": "room-stranger" })).status).toBe(404);
  });
});
