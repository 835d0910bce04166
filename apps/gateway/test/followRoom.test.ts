// One subscriber's room stream (followRoom) on the in-memory stores: the replay after Last-Event-ID
// comes from the message store, and live message events reach it in sequence, once, even when a
// peer's event overtakes an earlier message's or never comes.
import { InMemoryProjectRoomMessageStore, InMemoryProjectRoomStore, InMemoryProjectStore, MAX_PAGE_LIMIT, roomMessageCursor } from "@axiom-lattice/core";
import type { ProjectRoomMessage } from "@axiom-lattice/protocols";
import { eventually } from "@axiom-lattice/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { type RoomFollower, type RoomResumePoint, type RoomStreamEndReason, followRoom } from "../src/rooms/followRoom";
import { ProjectRoomEventBroker } from "../src/rooms/projectRoomEventBroker";
import { messageCreatedEvent } from "../src/rooms/roomEvent";

const scope = { tenantId: "t", projectId: "p", roomId: "r" };

describe("followRoom", () => {
  let messages: InMemoryProjectRoomMessageStore;
  let broker: ProjectRoomEventBroker;
  beforeEach(async () => {
    const projects = new InMemoryProjectStore();
    const rooms = new InMemoryProjectRoomStore(projects);
    await projects.createProject("t", { id: "p", name: "P" });
    await rooms.createRoom("t", "p", { id: "r", name: "R" });
    messages = new InMemoryProjectRoomMessageStore(rooms);
    broker = new ProjectRoomEventBroker();
  });

  /** Stores a message without telling anyone: its event is the test's to publish, late or never. */
  const store = async (content: string) => (await messages.appendMessage(scope, { authorType: "user", authorId: "ada", content }))!.message;
  const tell = (message: ProjectRoomMessage) => broker.publishEvent(messageCreatedEvent(message));

  /** A started follower and what its stream received: `[id, content or type]`. */
  async function follow(resumePoint?: RoomResumePoint): Promise<{ follower: RoomFollower; received: Array<[string | undefined, string]>; ends: RoomStreamEndReason[] }> {
    const received: Array<[string | undefined, string]> = [];
    const ends: RoomStreamEndReason[] = [];
    const follower = await followRoom(broker, messages, scope, resumePoint);
    follower.start({
      send: async (id, serialized) => {
        const event = JSON.parse(serialized) as { type: string; data: { content?: string } };
        received.push([id, event.data.content ?? event.type]);
      },
      end: (reason) => void ends.push(reason),
    });
    return { follower, received, ends };
  }

  it("fills from the store the messages a live event overtook, and drops their late events", async () => {
    const { received } = await follow();
    const [m1, m2, m3] = [await store("m1"), await store("m2"), await store("m3")];
    tell(m3);
    await eventually("m1..m3", () => received.length === 3);
    tell(m1);
    tell(m2);
    const m4 = await store("m4");
    tell(m4);
    await eventually("m4", () => received.length === 4);
    expect(received).toEqual([["1", "m1"], ["2", "m2"], ["3", "m3"], ["4", "m4"]]);
  });

  it("replays after the resume point while live events arrive, sending each message once, then follows live", async () => {
    for (const content of ["m1", "m2", "m3", "m4"]) await store(content);
    const { received } = await follow({ after: 1 });
    // Published while the replay runs: they wait, and m4's is dropped, the replay having sent it.
    tell((await messages.listMessages(scope, { limit: 1, cursor: roomMessageCursor(3) })).items[0]!);
    broker.publish(scope, { type: "task.status", data: {} });
    await eventually("m2..m4 and the task event", () => received.length === 4);
    expect(received).toEqual([["2", "m2"], ["3", "m3"], ["4", "m4"], [undefined, "task.status"]]);
  });

  it("replays a history longer than a page of the store, every message once, in order", async () => {
    const count = MAX_PAGE_LIMIT * 2 + 5;
    for (let index = 1; index <= count; index += 1) await store(`m${index}`);
    const { received } = await follow({ after: 2 });
    await eventually("the whole replay", () => received.length === count - 2);
    expect(received.map(([id]) => Number(id))).toEqual(Array.from({ length: count - 2 }, (_, index) => index + 3));
  });

  it("follows from the room's last message without a resume point, and from it after an id that names none", async () => {
    await store("before");
    for (const resumePoint of [undefined, "unplaced" as const, { after: 99 }]) {
      const { follower, received } = await follow(resumePoint);
      expect(follower.replayComplete).toBe(resumePoint === undefined);
      const message = await store(`after ${JSON.stringify(resumePoint)}`);
      tell(message);
      await eventually("the live message", () => received.length === 1);
      expect(received).toEqual([[String(message.sequence), message.content]]);
      follower.close();
    }
  });

  it("ends with history_unavailable when the store fails the replay", async () => {
    await store("m1");
    messages.listMessages = async () => {
      throw new Error("database down");
    };
    const { ends, received } = await follow({ after: 0 });
    await eventually("the end", () => ends.length === 1);
    expect(ends).toEqual(["history_unavailable"]);
    expect(received).toEqual([]);
    expect(broker.activeSubscriberCount).toBe(0);
  });
});
