import type { AppendProjectRoomMessageRequest, ProjectRoomMessageStore, ProjectRoomScope, ProjectRoomStore, ProjectStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { forgedCursors, walkPages } from "./pageWalk";

/** One page holding every message these tests post. */
const ALL = { limit: 1_000 };

/** A message store with the project and room stores its rooms come from. */
export interface ProjectRoomMessageStoreHarness {
  projects: ProjectStore;
  rooms: ProjectRoomStore;
  messages: ProjectRoomMessageStore;
}

const says = (content: string, idempotencyKey?: string): AppendProjectRoomMessageRequest => ({
  authorType: "user",
  authorId: "ada",
  content,
  ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
});

/**
 * The {@link ProjectRoomMessageStore} contract. Every implementation runs this same suite, so their
 * semantics cannot drift. `makeHarness` may return the same stores for every call.
 */
export function projectRoomMessageStoreContract(name: string, makeHarness: () => Promise<ProjectRoomMessageStoreHarness>): void {
  describe(`ProjectRoomMessageStore contract: ${name}`, () => {
    let harness: ProjectRoomMessageStoreHarness;
    beforeAll(async () => {
      harness = await makeHarness();
    });

    /** A room of its own in a fresh tenant. */
    const roomScope = async (tenantId = fresh("tenant")): Promise<ProjectRoomScope> => {
      await harness.projects.createProject(tenantId, { id: "p", name: "Launch" });
      await harness.rooms.createRoom(tenantId, "p", { id: "r", name: "General" });
      return { tenantId, projectId: "p", roomId: "r" };
    };
    const contents = async (scope: ProjectRoomScope) => (await harness.messages.listMessages(scope, ALL)).items.map((message) => message.content);

    it("appends messages with increasing sequences and lists them in that order", async () => {
      const scope = await roomScope();
      const first = await harness.messages.appendMessage(scope, says("hello"));
      expect(first).toMatchObject({ created: true, message: { ...scope, authorType: "user", authorId: "ada", content: "hello" } });
      expect(first!.message.id).toMatch(/\S/);
      expect(first!.message.idempotencyKey).toBeUndefined();
      expect(first!.message.createdAt).toBeInstanceOf(Date);
      const second = await harness.messages.appendMessage(scope, { authorType: "agent", authorId: "writer", content: "hi", idempotencyKey: "k" });
      expect(second!.message.sequence).toBeGreaterThan(first!.message.sequence);
      expect((await harness.messages.listMessages(scope, ALL)).items).toEqual([first!.message, second!.message]);
    });

    it("stores a message once per idempotency key, also when racers post it at once", async () => {
      const scope = await roomScope();
      const stored = await harness.messages.appendMessage(scope, says("once", "key-1"));
      const again = await harness.messages.appendMessage(scope, says("once", "key-1"));
      expect(again).toEqual({ message: stored!.message, created: false });
      const raced = await Promise.all(Array.from({ length: 8 }, () => harness.messages.appendMessage(scope, says("raced", "key-2"))));
      expect(raced.filter((outcome) => outcome!.created)).toHaveLength(1);
      expect(new Set(raced.map((outcome) => outcome!.message.id)).size).toBe(1);
      expect(await contents(scope)).toEqual(["once", "raced"]);
    });

    it("numbers a room's messages 1, 2, 3… without a gap: a retried idempotency key takes no sequence", async () => {
      const scope = await roomScope();
      const first = await harness.messages.appendMessage(scope, says("a", "k-a"));
      const retry = await harness.messages.appendMessage(scope, says("a", "k-a"));
      const next = await harness.messages.appendMessage(scope, says("b"));
      expect([first!.message.sequence, retry!.message.sequence, next!.message.sequence]).toEqual([1, 1, 2]);
      expect(retry!.created).toBe(false);
      expect(await harness.messages.lastSequence(scope)).toBe(2);
    });

    it("answers a room's last sequence: 0 before its first message and for a room that does not exist", async () => {
      const scope = await roomScope();
      expect(await harness.messages.lastSequence(scope)).toBe(0);
      await harness.messages.appendMessage(scope, says("one"));
      expect(await harness.messages.lastSequence(scope)).toBe(1);
      expect(await harness.messages.lastSequence({ ...scope, roomId: "ghost" })).toBe(0);
      expect(await harness.messages.lastSequence({ ...scope, tenantId: fresh("tenant") })).toBe(0);
    });

    it("keeps sequences gap-free and unique while posts and retries of one key race", async () => {
      const scope = await roomScope();
      const posts = 24;
      // Every third post is another racer of key "same": it stores once, the others answer it.
      const outcomes = await Promise.all(
        Array.from({ length: posts }, (_, index) => harness.messages.appendMessage(scope, index % 3 === 0 ? says("same", "same") : says(`m${index}`, `k${index}`))),
      );
      const stored = (await harness.messages.listMessages(scope, ALL)).items;
      const distinct = posts - posts / 3 + 1;
      expect(stored.map((message) => message.sequence)).toEqual(Array.from({ length: distinct }, (_, index) => index + 1));
      expect(new Set(outcomes.filter((outcome) => outcome!.message.content === "same").map((outcome) => outcome!.message.sequence)).size).toBe(1);
    });

    it("keeps idempotency keys per room: the same key in another room stores there", async () => {
      const scope = await roomScope();
      await harness.rooms.createRoom(scope.tenantId, "p", { id: "other", name: "Other" });
      const other = { ...scope, roomId: "other" };
      await harness.messages.appendMessage(scope, says("here", "k"));
      expect(await harness.messages.appendMessage(other, says("there", "k"))).toMatchObject({ created: true, message: { roomId: "other", content: "there" } });
      expect(await contents(scope)).toEqual(["here"]);
      expect(await contents(other)).toEqual(["there"]);
    });

    it("pages through the history by sequence: every message once, in order, while racers append between pages", async () => {
      const scope = await roomScope();
      const appended = await Promise.all(Array.from({ length: 12 }, (_, index) => harness.messages.appendMessage(scope, says(`m${index}`))));
      const sequences = appended.map((outcome) => outcome!.message.sequence);
      expect(new Set(sequences).size).toBe(12);
      const walked = await walkPages(
        (page) => harness.messages.listMessages(scope, page),
        5,
        {
          between: async () => {
            await Promise.all([harness.messages.appendMessage(scope, says("late")), harness.messages.appendMessage(scope, says("later"))]);
          },
        },
      );
      const sequencesWalked = walked.items.map((message) => message.sequence);
      expect(sequencesWalked).toEqual(Array.from({ length: sequencesWalked.length }, (_, index) => index + 1));
      expect(sequencesWalked.length).toBeGreaterThan(12);
      expect(walked.items.slice(0, 12).map((message) => message.sequence)).toEqual([...sequences].sort((x, y) => x - y));
      expect(await harness.messages.listMessages(scope, { limit: walked.items.length })).toMatchObject({ nextCursor: null });
    });

    it("answers null for a room that does not exist, writing nothing", async () => {
      const scope = await roomScope();
      const ghost = { ...scope, roomId: "ghost" };
      expect(await harness.messages.appendMessage(ghost, says("lost"))).toBeNull();
      expect(await harness.messages.appendMessage(ghost, says("lost", "k"))).toBeNull();
      expect((await harness.messages.listMessages(ghost, ALL)).items).toEqual([]);
    });

    it("isolates tenants: another tenant's room of the same ids is out of reach", async () => {
      const a = await roomScope();
      await harness.messages.appendMessage(a, says("a's secret", "k"));
      const b = { ...a, tenantId: fresh("tenant") };
      expect(await harness.messages.appendMessage(b, says("intruder", "k"))).toBeNull();
      expect((await harness.messages.listMessages(b, ALL)).items).toEqual([]);
      await roomScope(b.tenantId);
      expect(await harness.messages.appendMessage(b, says("b's", "k"))).toMatchObject({ created: true, message: { tenantId: b.tenantId, content: "b's" } });
      expect(await contents(a)).toEqual(["a's secret"]);
    });

    it.each<[string, (scope: ProjectRoomScope) => [ProjectRoomScope, AppendProjectRoomMessageRequest]]>([
      ["an empty tenant", (s) => [{ ...s, tenantId: "" }, says("x")]],
      ["an empty room id", (s) => [{ ...s, roomId: "" }, says("x")]],
      ["empty content", (s) => [s, says("")]],
      ["content beyond the bound", (s) => [s, says("x".repeat(16_385))]],
      ["content with a NUL character", (s) => [s, says("a\u0000")]],
      ["an unknown author type", (s) => [s, { ...says("x"), authorType: "robot" as never }]],
      ["an empty author id", (s) => [s, { ...says("x"), authorId: "" }]],
      ["an empty idempotency key", (s) => [s, says("x", "")]],
    ])("refuses %s with a typed error and writes nothing", async (_label, make) => {
      const scope = await roomScope();
      await expect(harness.messages.appendMessage(...make(scope))).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect((await harness.messages.listMessages(scope, ALL)).items).toEqual([]);
    });

    it.each(forgedCursors([1.5]))("refuses a cursor that is %s with INVALID_CURSOR", async (_label, cursor) => {
      const scope = await roomScope();
      await expect(harness.messages.listMessages(scope, { limit: 10, cursor })).rejects.toMatchObject({ code: "INVALID_CURSOR" });
    });

    it.each([0, 1_001, 1.5])("refuses a page limit of %s", async (limit) => {
      const scope = await roomScope();
      await expect(harness.messages.listMessages(scope, { limit })).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
    });
  });
}
