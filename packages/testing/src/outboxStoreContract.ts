import type { OutboxEvent, OutboxStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";

export interface OutboxStoreHarness {
  /** A store over an empty log (called once per suite). */
  makeStore(): Promise<OutboxStore>;
  /** Makes every event already in the log `ms` older by the store's clock. */
  ageEvents(ms: number): Promise<void>;
}

const HOUR = 60 * 60 * 1_000;

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

const circularObject = () => {
  const value: Record<string, unknown> = { a: 1 };
  value.self = { back: value };
  return value;
};

const circularArray = () => {
  const value: unknown[] = [1];
  value.push([value]);
  return value;
};

/**
 * The {@link OutboxStore} contract. Every implementation runs this same suite, so their semantics
 * cannot drift. Tests share one store and read from the position they started at.
 */
export function outboxStoreContract(name: string, harness: OutboxStoreHarness): void {
  describe(`OutboxStore contract: ${name}`, () => {
    let store: OutboxStore;
    beforeAll(async () => {
      store = await harness.makeStore();
    });

    const append = (topic = "contract", payload: unknown = { n: 1 }, originReplicaId = "replica-a") =>
      store.append({ topic, payload, originReplicaId });

    /**
     * Waits until no committed event waits above the horizon. In PostgreSQL an event becomes
     * readable only once every older transaction in the cluster has ended (other sessions'
     * included), which is usually at once but never guaranteed to be by the time append returns.
     */
    const settled = async () => {
      const deadline = Date.now() + 10_000;
      while ((await store.readAfter(null, 1)).pendingAboveHorizon) {
        if (Date.now() > deadline) throw new Error("events still wait above the horizon after 10 s");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };

    /** Runs `call`, which must fail with `code`, and checks the log did not move. */
    const refused = async (call: () => Promise<unknown>, code: string) => {
      await settled();
      const before = await store.latestId();
      await expect(call()).rejects.toMatchObject({ code });
      expect(await store.latestId()).toBe(before);
    };

    it("starts empty, then reads from the very first event", async () => {
      expect(await store.latestId()).toBeNull();
      expect(await store.listAfter(null, 10)).toEqual([]);
      const first = await append("first");
      await settled();
      expect(await store.listAfter(null, 10)).toEqual([first]);
      expect(await store.latestId()).toBe(first.cursor);
    });

    it("returns the appended event with an id, a cursor and the store's timestamp", async () => {
      const event = await append("created", { task: "t-1", status: "completed" }, "replica-b");
      expect(event).toMatchObject({ topic: "created", payload: { task: "t-1", status: "completed" }, originReplicaId: "replica-b" });
      expect(typeof event.id).toBe("string");
      expect(typeof event.cursor).toBe("string");
      expect(event.createdAt).toBeInstanceOf(Date);
      expect(Math.abs(event.createdAt.getTime() - Date.now())).toBeLessThan(HOUR);
    });

    it("lists events in append order, strictly after the cursor, a page at a time", async () => {
      await settled();
      const start = await store.latestId();
      const appended: OutboxEvent[] = [];
      for (let n = 0; n < 7; n += 1) appended.push(await append("paged", { n }));
      await settled();
      const read: OutboxEvent[] = [];
      let cursor = start;
      for (;;) {
        const page = await store.listAfter(cursor, 3);
        expect(page.length).toBeLessThanOrEqual(3);
        if (page.length === 0) break;
        read.push(...page);
        cursor = page[page.length - 1].cursor;
      }
      expect(read).toEqual(appended);
      expect(new Set(read.map((event) => event.id)).size).toBe(7);
      expect(await store.listAfter(appended[6].cursor, 10)).toEqual([]);
      expect(await store.listAfter(appended[2].cursor, 2)).toEqual(appended.slice(3, 5));
    });

    it("names the newest event in latestId, and nothing follows it", async () => {
      await append("older");
      const newest = await append("newest");
      await settled();
      const latest = await store.latestId();
      expect(latest).toBe(newest.cursor);
      expect(await store.listAfter(latest, 10)).toEqual([]);
    });

    it("reads a page with its horizon and read time", async () => {
      await settled();
      const start = await store.latestId();
      const event = await append("page");
      await settled();
      const page = await store.readAfter(start, 10);
      expect(page.events).toEqual([event]);
      expect(page.pendingAboveHorizon).toBe(false);
      expect(page.horizonAgeMs).toBe(0);
      expect(page.readAt).toBeInstanceOf(Date);
      expect(page.readAt.getTime()).toBeGreaterThanOrEqual(event.createdAt.getTime());
    });

    it.each([
      ["a nested object", { a: { b: [1, "two", { c: null }] }, d: true }],
      ["an array", [1, 2.5, -3, "x", false, null, [], {}]],
      ["a string with emoji and accents", "déjà vu 🚀 \u2028 \"quoted\" \\ back"],
      ["a bare number", 42],
      ["null", null],
      ["an empty object", {}],
      ["a Date (as its ISO string)", { at: new Date("2024-05-06T07:08:09.010Z") }],
      ["keys in any order", { z: 1, a: 2, mm: { y: 3, b: 4 } }],
    ])("round-trips %s", async (_label, payload) => {
      await settled();
      const start = await store.latestId();
      const event = await append("roundtrip", payload);
      const expected: unknown = JSON.parse(JSON.stringify(payload));
      expect(event.payload).toEqual(expected);
      await settled();
      expect((await store.listAfter(start, 10))[0].payload).toEqual(expected);
    });

    it("accepts a payload that shares a reference without a cycle", async () => {
      const shared = { id: "s" };
      const event = await append("shared", { left: shared, right: [shared, shared] });
      expect(event.payload).toEqual({ left: { id: "s" }, right: [{ id: "s" }, { id: "s" }] });
    });

    it("hands out payloads no reader can alter for another", async () => {
      await settled();
      const start = await store.latestId();
      await append("frozen", { list: [1] });
      await settled();
      const [first] = await store.listAfter(start, 1);
      (first.payload as { list: number[] }).list.push(2);
      const [again] = await store.listAfter(start, 1);
      expect(again.payload).toEqual({ list: [1] });
    });

    it.each([
      ["undefined", () => undefined],
      ["a function", () => () => 1],
      ["a symbol", () => Symbol("s")],
      ["a BigInt", () => 10n],
      ["a nested BigInt", () => ({ a: [{ b: 1n }] })],
      ["a nested undefined", () => ({ a: undefined })],
      ["undefined in an array", () => [1, undefined]],
      ["a nested function", () => ({ f() {} })],
      ["NaN", () => ({ n: Number.NaN })],
      ["Infinity", () => [Number.POSITIVE_INFINITY]],
      ["a circular object", circularObject],
      ["a circular array", circularArray],
      ["a Map", () => ({ m: new Map([["a", 1]]) })],
      ["a Set", () => new Set([1])],
      ["a class instance", () => ({ p: new Point(1, 2) })],
      ["a NUL character", () => ({ s: "a\u0000b" })],
      ["a NUL character in a key", () => ({ ["k\u0000"]: 1 })],
      ["a lone surrogate", () => ({ s: "\ud800x" })],
    ])("refuses a payload holding %s, and writes nothing", async (_label, payload) => {
      await refused(() => store.append({ topic: "bad", payload: payload(), originReplicaId: "replica-a" }), "INVALID_OUTBOX_PAYLOAD");
    });

    it.each([
      ["an empty topic", { topic: "", payload: {}, originReplicaId: "r" }],
      ["a non-string topic", { topic: 7, payload: {}, originReplicaId: "r" }],
      ["an empty origin", { topic: "t", payload: {}, originReplicaId: "" }],
      ["a missing origin", { topic: "t", payload: {} }],
      ["a topic with NUL", { topic: "t\u0000", payload: {}, originReplicaId: "r" }],
      ["no input at all", null],
    ])("refuses %s, and writes nothing", async (_label, input) => {
      await refused(() => store.append(input as never), "INVALID_OUTBOX_ARGUMENT");
    });

    it.each([
      ["an empty string", ""],
      ["garbage", "not-a-cursor"],
      ["one number", "12"],
      ["a missing id", "12-"],
      ["a negative part", "-1-2"],
      ["three parts", "1-2-3"],
      ["leading zeros", "01-2"],
      ["spaces", " 1-2"],
      ["a txid beyond xid8", "18446744073709551616-1"],
      ["an id beyond bigint", "1-9223372036854775808"],
      ["a number instead of a string", 12],
      ["an object", { txid: 1, id: 2 }],
    ])("refuses %s as a cursor", async (_label, cursor) => {
      await expect(store.listAfter(cursor as never, 10)).rejects.toMatchObject({ code: "INVALID_OUTBOX_CURSOR" });
      await expect(store.readAfter(cursor as never, 10)).rejects.toMatchObject({ code: "INVALID_OUTBOX_CURSOR" });
    });

    it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "10"])("refuses the limit %s", async (limit) => {
      await expect(store.listAfter(null, limit as never)).rejects.toMatchObject({ code: "INVALID_OUTBOX_ARGUMENT" });
    });

    it("prunes events older than the threshold, keeps newer ones, and says how many", async () => {
      await settled();
      const existing = (await store.listAfter(null, 10_000)).length;
      expect(existing).toBeGreaterThan(0);
      await harness.ageEvents(2 * HOUR);
      const boundary = await store.latestId();
      const fresh = [await append("fresh", { n: 1 }), await append("fresh", { n: 2 })];
      await settled();
      expect(await store.pruneOlderThan(HOUR)).toBe(existing);
      expect(await store.listAfter(null, 10_000)).toEqual(fresh);
      // Pruning never moves positions: a reader's cursor stays valid.
      expect(await store.listAfter(boundary, 10)).toEqual(fresh);
      expect(await store.pruneOlderThan(HOUR)).toBe(0);
      expect(await store.listAfter(null, 10_000)).toEqual(fresh);
    });

    it.each([-1, Number.NaN, Number.POSITIVE_INFINITY, "1"])("refuses the retention age %s", async (age) => {
      await expect(store.pruneOlderThan(age as never)).rejects.toMatchObject({ code: "INVALID_OUTBOX_ARGUMENT" });
    });

    it("wakes a subscriber after an append, and stops once unsubscribed", async () => {
      const subscribe = store.subscribe?.bind(store);
      if (!subscribe) return;
      let wakes = 0;
      const unsubscribe = subscribe(() => {
        wakes += 1;
      });
      try {
        const deadline = Date.now() + 5_000;
        await append("wake");
        while (wakes === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(wakes).toBeGreaterThan(0);
      } finally {
        unsubscribe();
      }
    });
  });
}
