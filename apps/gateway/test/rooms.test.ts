// The rooms API on both store kinds: rooms of a project, messages with an idempotency key, snake_case
// answers and events, the paged lists and history, the live event stream with Last-Event-ID replay and heartbeats, bad input refused without a
// write, and another tenant's projects and rooms out of reach on every route.
import { type SseEvent, eventually, followSse, sseFrames } from "@axiom-lattice/testing";
import { once } from "node:events";
import { connect } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { ProjectRoomEventBroker } from "../src/rooms/projectRoomEventBroker";
import { camelKeys, expectBadPagesRefused, walkList } from "./listPages";
import { buildTestGateway, useGateway, useStoreEnv } from "./support";

const OTHER_TENANT = { "x-tenant-id": "tenant-other" };

interface Message {
  id: string;
  sequence: number;
  content: string;
}

describe.each(["memory", "postgresql"])("rooms on %s stores", (stores) => {
  const storeEnv = useStoreEnv(stores);
  const gateway = useGateway(
    async ({ post }) => {
      expect((await post("/api/projects", { id: "launch", name: "Launch" })).statusCode).toBe(201);
      expect((await post("/api/projects/launch/rooms", { id: "general", name: "General" })).statusCode).toBe(201);
    },
    () => ({ ...storeEnv(), AXIOM_SSE_HEARTBEAT_MS: "100" }),
  );
  const { post, get } = gateway;
  let baseUrl = "";
  beforeAll(async () => {
    baseUrl = await gateway.app.listen({ port: 0, host: "127.0.0.1" });
  });

  /** A room of its own for one test. */
  const newRoom = async (id: string) => {
    expect((await post("/api/projects/launch/rooms", { id, name: id })).statusCode).toBe(201);
    return `/api/projects/launch/rooms/${id}`;
  };
  const history = async (room: string, query = "") => (await get(`${room}/messages${query}`)).json<{ messages: Message[]; next_cursor: string | null; has_more: boolean }>();
  // The stream subscribes before it answers: once the head is here, every later post reaches it.
  const follow = (room: string, headers: Record<string, string> = {}) => followSse(`${baseUrl}${room}/events`, headers);
  const messagesOf = (events: SseEvent[]) => events.filter((event) => event.type === "message.created").map((event) => (event.data as Message).content);

  it("creates rooms in a project and lists them in creation order", async () => {
    expect((await post("/api/projects", { id: "rooms-list", name: "Listed" })).statusCode).toBe(201);
    const created = await post("/api/projects/rooms-list/rooms", { id: "design", name: "Design" });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ id: "design", tenant_id: "default", project_id: "rooms-list", name: "Design" });
    expect(Object.keys(created.json()).sort()).toEqual(["created_at", "id", "name", "project_id", "tenant_id"]);
    const generated = await post("/api/projects/rooms-list/rooms", { name: "Random" });
    expect(generated.json<{ id: string }>().id).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await get("/api/projects/rooms-list/rooms");
    expect(listed.statusCode).toBe(200);
    expect(listed.json<{ rooms: { id: string }[] }>().rooms.map((room) => room.id)).toEqual(["design", generated.json<{ id: string }>().id]);
  });

  it("refuses a room id the project uses (409) and a room of an unknown project (404), keeping what was", async () => {
    const again = await post("/api/projects/launch/rooms", { id: "general", name: "Again" });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: "ALREADY_EXISTS" });
    for (const response of [await post("/api/projects/ghost/rooms", { name: "Lost" }), await get("/api/projects/ghost/rooms")]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: "NOT_FOUND" });
    }
    expect((await get("/api/projects/launch/rooms")).json<{ rooms: { id: string; name: string }[] }>().rooms.find((room) => room.id === "general")?.name).toBe("General");
  });

  it("pages a project's rooms: every room once, in creation order, has_more false at the end", async () => {
    expect((await post("/api/projects", { id: "many-rooms", name: "Many rooms" })).statusCode).toBe(201);
    const ids = Array.from({ length: 5 }, (_, index) => `room-${index}`);
    for (const id of ids) expect((await post("/api/projects/many-rooms/rooms", { id, name: id })).statusCode).toBe(201);
    const walked = await walkList<Record<string, unknown>>(get, "/api/projects/many-rooms/rooms", "rooms", 2);
    expect(walked.items.map((room) => room.id)).toEqual(ids);
    expect(walked.pages).toBe(3);
    for (const room of walked.items) expect(camelKeys(room)).toEqual([]);
  });

  it("stores a posted message and pages through the history with limit and cursor", async () => {
    const room = await newRoom("paged");
    const posted = await post(`${room}/messages`, { content: "first" });
    expect(posted.statusCode).toBe(201);
    expect(posted.json()).toMatchObject({ project_id: "launch", room_id: "paged", sequence: 1, author_type: "user", author_id: "anonymous", content: "first" });
    expect(Object.keys(posted.json()).sort()).toEqual(["author_id", "author_type", "content", "created_at", "id", "project_id", "room_id", "sequence", "tenant_id"]);
    for (const content of ["second", "third", "fourth", "fifth"]) expect((await post(`${room}/messages`, { content })).statusCode).toBe(201);
    const firstPage = await history(room, "?limit=3");
    expect(firstPage.messages.map((message) => message.content)).toEqual(["first", "second", "third"]);
    expect(firstPage.has_more).toBe(true);
    const walked = await walkList<Message>(get, `${room}/messages`, "messages", 2);
    expect(walked.items.map((message) => message.content)).toEqual(["first", "second", "third", "fourth", "fifth"]);
    expect(walked.items.map((message) => message.sequence)).toEqual([1, 2, 3, 4, 5]);
    expect(walked.pages).toBe(3);
    // A message posted after the last page is on the page after that page's last message.
    const lastPage = await history(room, `?limit=5&cursor=${encodeURIComponent(firstPage.next_cursor!)}`);
    expect(lastPage).toMatchObject({ next_cursor: null, has_more: false });
    expect(lastPage.messages.map((message) => message.content)).toEqual(["fourth", "fifth"]);
  });

  it("stores a message once per Idempotency-Key: a retry answers it again with 200, another content with the key is 409", async () => {
    const room = await newRoom("idempotent");
    const key = { "idempotency-key": "post-7f3a" };
    const first = await post(`${room}/messages`, { content: "exactly once" }, key);
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ idempotency_key: "post-7f3a" });
    const retry = await post(`${room}/messages`, { content: "exactly once" }, key);
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toEqual(first.json());
    const raced = await Promise.all(Array.from({ length: 6 }, () => post(`${room}/messages`, { content: "raced" }, { "idempotency-key": "race" })));
    expect(raced.map((response) => response.statusCode).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    const reused = await post(`${room}/messages`, { content: "something else" }, key);
    expect(reused.statusCode).toBe(409);
    expect(reused.json()).toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
    expect((await history(room)).messages.map((message) => message.content)).toEqual(["exactly once", "raced"]);
  });

  it.each<[string, string, unknown, Record<string, string>?]>([
    ["empty content", "general", { content: "" }],
    ["content beyond the bound", "general", { content: "x".repeat(16_385) }],
    ["a field the API does not know", "general", { content: "hi", authorId: "someone-else" }],
    ["no content", "general", {}],
    ["a room id that is no id", "bad%20room", { content: "hi" }],
    ["an idempotency key with spaces", "general", { content: "hi" }, { "idempotency-key": "a b" }],
  ])("refuses a message with %s (400) and stores nothing", async (_label, roomId, body, headers = {}) => {
    const before = (await history("/api/projects/launch/rooms/general")).messages.length;
    const response = await post(`/api/projects/launch/rooms/${roomId}/messages`, body, headers);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, code: "INVALID_REQUEST" });
    expect((await history("/api/projects/launch/rooms/general")).messages).toHaveLength(before);
  });

  it("refuses a cursor no page answered (400 INVALID_CURSOR) and a limit out of bounds (400), on the rooms and the history", async () => {
    await expectBadPagesRefused(get, "/api/projects/launch/rooms");
    await expectBadPagesRefused(get, "/api/projects/launch/rooms/general/messages");
    // A fraction where the history keys by sequence: no place in it.
    const fraction = await get(`/api/projects/launch/rooms/general/messages?cursor=${Buffer.from("[1.5]").toString("base64url")}`);
    expect(fraction.json()).toMatchObject({ code: "INVALID_CURSOR" });
  });

  it("streams a room's messages live and resumes after Last-Event-ID", async () => {
    const room = await newRoom("live");
    const stream = await follow(room);
    await post(`${room}/messages`, { content: "one" });
    await post(`${room}/messages`, { content: "two" });
    await eventually("two events", () => stream.events.length === 2);
    const [first] = stream.events;
    // A message's event id is its sequence: the place in the history a reconnect resumes after.
    expect(first).toMatchObject({ id: "1", type: "message.created", data: { project_id: "launch", room_id: "live", sequence: 1, content: "one" } });
    // The message is the one the history answers.
    expect((await history(room)).messages[0]).toEqual(first.data);
    await stream.close();

    await post(`${room}/messages`, { content: "three" });
    const resumed = await follow(room, { "last-event-id": first.id! });
    await eventually("the replay", () => resumed.events.length === 2);
    expect(messagesOf(resumed.events)).toEqual(["two", "three"]);
    // A retried post is the same fact: followers get it once.
    await post(`${room}/messages`, { content: "four" }, { "idempotency-key": "four" });
    await post(`${room}/messages`, { content: "four" }, { "idempotency-key": "four" });
    await post(`${room}/messages`, { content: "five" });
    await eventually("five", () => messagesOf(resumed.events).includes("five"));
    expect(messagesOf(resumed.events)).toEqual(["two", "three", "four", "five"]);
    await resumed.close();
  });

  it("answers text/event-stream and sends heartbeats while quiet", async () => {
    const room = await newRoom("quiet");
    const abort = new AbortController();
    const response = await fetch(`${baseUrl}${room}/events`, { signal: abort.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    for await (const frame of sseFrames(response.body)) {
      expect(frame).toEqual({ comment: "heartbeat" });
      break;
    }
    abort.abort();
  });

  it("frames each event as snake_case JSON: its envelope, its scope and its message", async () => {
    const room = await newRoom("framed");
    await post(`${room}/messages`, { content: "framed" });
    const abort = new AbortController();
    const response = await fetch(`${baseUrl}${room}/events`, { headers: { "last-event-id": "0" }, signal: abort.signal });
    for await (const frame of sseFrames(response.body)) {
      if (frame.data === undefined) continue;
      const event = JSON.parse(frame.data) as { scope: object; data: object };
      expect(Object.keys(event)).toEqual(["id", "type", "scope", "data", "created_at"]);
      expect(event.scope).toEqual({ tenant_id: "default", project_id: "launch", room_id: "framed" });
      expect(camelKeys(event.data)).toEqual([]);
      expect(event.data).toEqual((await history(room)).messages[0]);
      break;
    }
    abort.abort();
  });

  it("replays the whole history after Last-Event-ID 0, and says a replay is incomplete only for an id that names no message of the room", async () => {
    const room = await newRoom("gap");
    await post(`${room}/messages`, { content: "one" });
    await post(`${room}/messages`, { content: "two" });
    const whole = await follow(room, { "last-event-id": "0" });
    await eventually("the whole history", () => whole.events.length === 2);
    expect(whole.events.map((event) => event.id)).toEqual(["1", "2"]);
    await whole.close();
    // A broker event id (a task.status event's, or any id of a gateway before ids were sequences), and a
    // sequence the room never reached: the stream says so first, then follows live from the last message.
    for (const lastEventId of ["0123456789ab-1", "99"]) {
      const unplaced = await follow(room, { "last-event-id": lastEventId });
      await post(`${room}/messages`, { content: `after ${lastEventId}` });
      await eventually("the live message", () => unplaced.events.length === 2);
      expect(unplaced.events[0]).toEqual({ type: "stream.replay_incomplete", data: { last_event_id: lastEventId } });
      expect(messagesOf(unplaced.events)).toEqual([`after ${lastEventId}`]);
      await unplaced.close();
    }
    const malformed = await get(`${room}/events`, { "last-event-id": "not an id" });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: "INVALID_REQUEST" });
  });

  it("shows the project's tasks moving: each status change reaches every room of the project once", async () => {
    const [room, other] = [await newRoom("tasks"), await newRoom("tasks-too")];
    expect((await post("/api/projects", { id: "elsewhere", name: "Elsewhere" })).statusCode).toBe(201);
    const [here, there] = [await follow(room), await follow(other)];
    expect((await post("/api/tasks", { id: "room-task", title: "Draft", owner_type: "user", owner_id: "ada", project_id: "launch" })).statusCode).toBe(201);
    expect((await post("/api/tasks", { id: "other-task", title: "Not ours", owner_type: "user", owner_id: "ada", project_id: "elsewhere" })).statusCode).toBe(201);
    const patch = (status: string) =>
      gateway.app.inject({ method: "PATCH", url: "/api/tasks/room-task", headers: { "content-type": "application/json" }, payload: JSON.stringify({ status }) });
    expect((await patch("in_progress")).statusCode).toBe(200);
    await post(`${room}/messages`, { content: "after the change" });
    await eventually("the message after the change", () => messagesOf(here.events).length === 1);
    await eventually("the change in the other room", () => there.ofType("task.status").some((event) => (event.data as { status: string }).status === "in_progress"));
    for (const stream of [here, there]) {
      const changes = stream.ofType("task.status").map((event) => event.data as { task_id: string; status: string });
      expect(changes.every((change) => change.task_id === "room-task")).toBe(true);
      expect(changes.filter((change) => change.status === "in_progress")).toHaveLength(1);
      // Live only: no id line, so a reconnect's Last-Event-ID stays the last message's sequence.
      expect(stream.ofType("task.status").map((event) => event.id)).toEqual(changes.map(() => undefined));
    }
    await here.close();
    await there.close();
  });

  it("keeps another tenant's projects and rooms out of reach on every route, the stream included", async () => {
    const room = await newRoom("private");
    const watcher = await follow(room);
    for (const response of [
      await get("/api/projects/launch/rooms", OTHER_TENANT),
      await post("/api/projects/launch/rooms", { id: "intruder", name: "Intruder" }, OTHER_TENANT),
      await post(`${room}/messages`, { content: "intrusion" }, OTHER_TENANT),
      await get(`${room}/messages`, OTHER_TENANT),
      await get(`${room}/events`, OTHER_TENANT),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: "NOT_FOUND" });
    }
    // The same ids in the other tenant are its own room: its messages reach only its followers.
    expect((await post("/api/projects", { id: "launch", name: "Theirs" }, OTHER_TENANT)).statusCode).toBe(201);
    expect((await post("/api/projects/launch/rooms", { id: "private", name: "Theirs" }, OTHER_TENANT)).statusCode).toBe(201);
    const theirs = await follow(room, OTHER_TENANT);
    await post(`${room}/messages`, { content: "their secret" }, OTHER_TENANT);
    await post(`${room}/messages`, { content: "ours" });
    await eventually("our message", () => messagesOf(watcher.events).length === 1);
    await eventually("their message", () => messagesOf(theirs.events).length === 1);
    expect(messagesOf(watcher.events)).toEqual(["ours"]);
    expect(messagesOf(theirs.events)).toEqual(["their secret"]);
    expect((await history(room)).messages.map((message) => message.content)).toEqual(["ours"]);
    await watcher.close();
    await theirs.close();
  });
});

describe("room streams at shutdown", () => {
  it("end with stream.end when the server closes, so closing never waits for them", async () => {
    const { app, context } = await buildTestGateway({});
    const baseUrl = await app.listen({ port: 0, host: "127.0.0.1" });
    const inject = (url: string, payload: unknown) => app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
    expect((await inject("/api/projects", { id: "p", name: "P" })).statusCode).toBe(201);
    expect((await inject("/api/projects/p/rooms", { id: "r", name: "R" })).statusCode).toBe(201);
    const stream = await followSse(`${baseUrl}/api/projects/p/rooms/r/events`, {});
    await app.close();
    await stream.ended;
    expect(stream.events).toEqual([{ type: "stream.end", data: { reason: "broker_closed" } }]);
    await context.close();
  });
});

describe("a room subscriber that stops reading", () => {
  it("is cut off with stream.end once its queue is full, while the others receive every message", { timeout: 30_000 }, async () => {
    const { app, context } = await buildTestGateway(
      {},
      {
        // A small queue per subscriber, so the socket buffers (megabytes) are the bulk of what fills.
        prepare: (prepared) => {
          prepared.roomEvents.close();
          prepared.roomEvents = new ProjectRoomEventBroker({ maxPendingPerSubscriber: 5 });
        },
      },
    );
    const baseUrl = await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const inject = (url: string, payload: unknown) => app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
      expect((await inject("/api/projects", { id: "p", name: "P" })).statusCode).toBe(201);
      expect((await inject("/api/projects/p/rooms", { id: "r", name: "R" })).statusCode).toBe(201);
      const reader = await followSse(`${baseUrl}/api/projects/p/rooms/r/events`, {});
      // The stalled client: it sends its request, reads the head, then never reads again.
      const { port } = new URL(baseUrl);
      const stalled = connect(Number(port), "127.0.0.1");
      stalled.write("GET /api/projects/p/rooms/r/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      await once(stalled, "data");
      stalled.pause();
      await eventually("both subscribed", () => context.roomEvents.activeSubscriberCount === 2);

      const content = "x".repeat(16_000);
      let posted = 0;
      while (context.roomEvents.activeSubscriberCount === 2 && posted < 2_000) {
        expect((await inject("/api/projects/p/rooms/r/messages", { content })).statusCode).toBe(201);
        posted += 1;
      }
      expect(context.roomEvents.activeSubscriberCount).toBe(1);
      console.log(`stalled subscriber cut off after ${posted} messages of 16 kB`);
      await eventually("every message", () => reader.events.length === posted, { timeoutMs: 20_000 });
      expect(context.roomEvents.pendingDeliveries).toBe(0);

      // Once it reads again, the stalled client finds the end of its stream.
      let tail = "";
      stalled.on("data", (chunk: Buffer) => (tail = (tail + chunk.toString("latin1")).slice(-200)));
      stalled.resume();
      await eventually("the end event", () => tail.includes('data: {"type":"stream.end","data":{"reason":"slow_subscriber"}}'));
      stalled.destroy();
      await reader.close();
    } finally {
      await app.close();
      await context.close();
    }
  });
});
