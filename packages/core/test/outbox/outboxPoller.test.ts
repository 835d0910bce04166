import type { OutboxEvent } from "@axiom-lattice/protocols";
import { eventually } from "@axiom-lattice/testing";
import { afterEach, describe, expect, it } from "vitest";
import { InMemoryOutboxStore, OutboxPoller, type OutboxHandler, type OutboxPollerOptions } from "../../src";
import { recordingLogger } from "../coordination/support";
import { ControllableOutboxStore } from "./support";

const OWNER = "replica-self";
const PEER = "replica-peer";

const pollers: OutboxPoller[] = [];
afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
});

function startPoller(options: Partial<OutboxPollerOptions> & Pick<OutboxPollerOptions, "store" | "handlers">) {
  const { logger, entries: logs } = recordingLogger();
  const poller = new OutboxPoller({ owner: OWNER, intervalMs: 60_000, logger, ...options });
  pollers.push(poller);
  return { poller, logs, started: poller.start() };
}

/** A handler that records what it was given. */
function recorder() {
  const seen: { payload: unknown; event: OutboxEvent }[] = [];
  const handler: OutboxHandler = async (payload, event) => {
    seen.push({ payload, event });
  };
  return { seen, handler };
}

const append = (store: InMemoryOutboxStore, topic: string, payload: unknown, origin = PEER) =>
  store.append({ topic, payload, originReplicaId: origin });

describe("OutboxPoller", () => {
  it("starts from the newest event: history is not replayed", async () => {
    const store = new InMemoryOutboxStore();
    await append(store, "t", { n: "old-1" });
    await append(store, "t", { n: "old-2" });
    const { seen, handler } = recorder();
    const { started } = startPoller({ store, handlers: { t: handler } });
    await started;
    await append(store, "t", { n: "new" });
    await eventually("the new event", () => seen.length === 1, { timeoutMs: 2_000 });
    expect(seen.map((entry) => entry.payload)).toEqual([{ n: "new" }]);
  });

  it("delivers peers' events to their topic's handler and skips its own", async () => {
    const store = new InMemoryOutboxStore();
    const a = recorder();
    const b = recorder();
    const { poller, started } = startPoller({ store, handlers: { a: a.handler, b: b.handler } });
    await started;
    await append(store, "a", { n: 1 });
    await append(store, "a", { n: 2 }, OWNER);
    await append(store, "b", { n: 3 });
    const last = await append(store, "a", { n: 4 });
    await eventually("the last event", () => poller.stats().cursor === last.cursor, { timeoutMs: 2_000 });
    expect(a.seen.map((entry) => entry.payload)).toEqual([{ n: 1 }, { n: 4 }]);
    expect(b.seen.map((entry) => entry.payload)).toEqual([{ n: 3 }]);
    expect(a.seen[0].event).toMatchObject({ topic: "a", originReplicaId: PEER });
    expect(poller.stats()).toMatchObject({ delivered: 3, skippedOwn: 1, failed: 0, ignored: 0 });
  });

  it("ignores topics without a handler, including names of Object.prototype members", async () => {
    const store = new InMemoryOutboxStore();
    const { seen, handler } = recorder();
    const { poller, started } = startPoller({ store, handlers: { known: handler } });
    await started;
    for (const topic of ["unknown", "constructor", "toString", "__proto__", "hasOwnProperty"]) await append(store, topic, { topic });
    const last = await append(store, "known", { n: 1 });
    await eventually("the last event", () => poller.stats().cursor === last.cursor, { timeoutMs: 2_000 });
    expect(seen.map((entry) => entry.payload)).toEqual([{ n: 1 }]);
    expect(poller.stats()).toMatchObject({ delivered: 1, ignored: 5, failed: 0, pollErrors: 0 });
  });

  it("logs and skips an event its handler rejects, never retries it, and goes on", async () => {
    const store = new InMemoryOutboxStore();
    let calls = 0;
    const delivered: unknown[] = [];
    const handler: OutboxHandler = async (payload) => {
      calls += 1;
      if ((payload as { bad?: boolean }).bad) throw new Error("malformed payload");
      delivered.push(payload);
    };
    const { poller, logs, started } = startPoller({ store, handlers: { t: handler } });
    await started;
    const bad = await append(store, "t", { bad: true });
    await append(store, "t", { n: 1 });
    await eventually("both events", () => calls === 2, { timeoutMs: 2_000 });
    // More polls must not call the handler with the rejected event again.
    poller.wake();
    const last = await append(store, "t", { n: 2 });
    await eventually("the last event", () => poller.stats().cursor === last.cursor, { timeoutMs: 2_000 });
    expect(calls).toBe(3);
    expect(delivered).toEqual([{ n: 1 }, { n: 2 }]);
    expect(poller.stats()).toMatchObject({ delivered: 2, failed: 1 });
    expect(logs).toContainEqual(expect.objectContaining({ level: "warn", fields: expect.objectContaining({ eventId: bad.id, topic: "t" }) }));
  });

  it("advances its cursor after each event, before the next handler runs", async () => {
    const store = new InMemoryOutboxStore();
    const cursorsSeen: (string | null)[] = [];
    const events: OutboxEvent[] = [];
    let poller!: OutboxPoller;
    const handler: OutboxHandler = async (_payload, event) => {
      cursorsSeen.push(poller.stats().cursor);
      events.push(event);
    };
    const started = startPoller({ store, handlers: { t: handler }, wakeups: null });
    poller = started.poller;
    await started.started;
    const start = poller.stats().cursor;
    for (let n = 0; n < 4; n += 1) await append(store, "t", { n });
    poller.wake();
    await eventually("four events", () => events.length === 4, { timeoutMs: 2_000 });
    expect(cursorsSeen).toEqual([start, events[0].cursor, events[1].cursor, events[2].cursor]);
    await eventually("the cursor to pass the last", () => poller.stats().cursor === events[3].cursor, { timeoutMs: 2_000 });
  });

  it("reads page after page when more than a batch is waiting", async () => {
    const store = new InMemoryOutboxStore();
    const { seen, handler } = recorder();
    const { poller, started } = startPoller({ store, handlers: { t: handler }, batchSize: 2, wakeups: null });
    await started;
    for (let n = 0; n < 5; n += 1) await append(store, "t", { n });
    poller.wake();
    await eventually("five events", () => seen.length === 5, { timeoutMs: 2_000 });
    expect(seen.map((entry) => entry.payload)).toEqual([0, 1, 2, 3, 4].map((n) => ({ n })));
  });

  it("polls at once when woken, long before its interval", async () => {
    const store = new InMemoryOutboxStore();
    const { seen, handler } = recorder();
    const { started } = startPoller({ store, handlers: { t: handler }, intervalMs: 60_000 });
    await started;
    await append(store, "t", { n: 1 });
    await eventually("the woken delivery", () => seen.length === 1, { timeoutMs: 1_000 });
  });

  it("falls back to polling every intervalMs without wake-ups", async () => {
    const store = new InMemoryOutboxStore();
    const { seen, handler } = recorder();
    const { poller, started } = startPoller({ store, handlers: { t: handler }, intervalMs: 30, wakeups: null });
    await started;
    await append(store, "t", { n: 1 });
    await eventually("the polled delivery", () => seen.length === 1, { timeoutMs: 2_000 });
    expect(poller.stats().polls).toBeGreaterThan(1);
  });

  it("re-polls quickly while events wait above the horizon, and reports the horizon's age", async () => {
    const store = new ControllableOutboxStore();
    const { seen, handler } = recorder();
    const { poller, started } = startPoller({ store, handlers: { t: handler }, intervalMs: 60_000, wakeups: null });
    await started;
    await append(store, "t", { n: 1 });
    store.holdBackMs = 1_500;
    poller.wake();
    const readsBefore = store.reads;
    // Only the quick re-poll can read again: the interval is a minute and nothing wakes the poller.
    await eventually("several quick re-polls", () => store.reads >= readsBefore + 3, { timeoutMs: 1_000 });
    expect(poller.stats().horizonAgeMs).toBe(1_500);
    store.holdBackMs = null;
    await eventually("the held event", () => seen.length === 1, { timeoutMs: 1_000 });
    expect(poller.stats().horizonAgeMs).toBe(0);
  });

  it("counts a failed poll, logs it, and recovers at the next one", async () => {
    const store = new ControllableOutboxStore();
    const { seen, handler } = recorder();
    const { poller, logs, started } = startPoller({ store, handlers: { t: handler }, intervalMs: 20, wakeups: null });
    await started;
    store.failNextReads = 2;
    await append(store, "t", { n: 1 });
    await eventually("the delivery after the failures", () => seen.length === 1, { timeoutMs: 2_000 });
    expect(poller.stats().pollErrors).toBe(2);
    expect(logs.filter((entry) => entry.level === "warn" && entry.msg?.includes("poll failed"))).toHaveLength(2);
  });

  it("reports the lag of what it reads and when it last polled", async () => {
    const clock = { offset: 0 };
    const store = new InMemoryOutboxStore({ now: () => Date.now() + clock.offset });
    const { seen, handler } = recorder();
    const { poller, started } = startPoller({ store, handlers: { t: handler }, wakeups: null });
    await started;
    await append(store, "t", { n: 1 });
    clock.offset = 750; // the event is read 750 ms (store clock) after it was written
    poller.wake();
    await eventually("the delivery", () => seen.length === 1, { timeoutMs: 2_000 });
    expect(poller.stats().lagMs).toBeGreaterThanOrEqual(750);
    expect(poller.stats().lastPollAt).toBeInstanceOf(Date);
  });

  it("stop() waits for the batch in flight, then delivers nothing more", async () => {
    const store = new InMemoryOutboxStore();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: unknown[] = [];
    const handler: OutboxHandler = async (payload) => {
      seen.push(payload);
      if ((payload as { n: number }).n === 1) await gate;
    };
    const { poller, started } = startPoller({ store, handlers: { t: handler }, wakeups: null });
    await started;
    await append(store, "t", { n: 1 });
    await append(store, "t", { n: 2 });
    poller.wake();
    await eventually("the first handler to start", () => seen.length === 1, { timeoutMs: 2_000 });
    let stopped = false;
    const stopping = poller.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped).toBe(false);
    release();
    await stopping;
    // The batch in flight was finished (event 2 was in it); nothing after the stop is read.
    expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
    await append(store, "t", { n: 3 });
    poller.wake();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("refuses to start twice", async () => {
    const { poller, started } = startPoller({ store: new InMemoryOutboxStore(), handlers: {} });
    await started;
    await expect(poller.start()).rejects.toThrow(/cannot start/);
  });

  it("fails start() when the start position cannot be read, and unsubscribes", async () => {
    const store = new InMemoryOutboxStore();
    let subscribed = 0;
    const wakeups = {
      subscribe: () => {
        subscribed += 1;
        return () => {
          subscribed -= 1;
        };
      },
    };
    store.latestId = async () => {
      throw new Error("database unavailable");
    };
    const { started } = startPoller({ store, handlers: {}, wakeups });
    await expect(started).rejects.toThrow("database unavailable");
    expect(subscribed).toBe(0);
  });

  it.each([
    ["an empty owner", { owner: "" }],
    ["a zero interval", { intervalMs: 0 }],
    ["a NaN interval", { intervalMs: Number.NaN }],
    ["a fractional batch size", { batchSize: 1.5 }],
    ["a negative re-poll period", { pendingRetryMs: -1 }],
  ])("refuses %s", (_label, options) => {
    expect(() => new OutboxPoller({ store: new InMemoryOutboxStore(), owner: OWNER, handlers: {}, ...options })).toThrow(
      expect.objectContaining({ code: "INVALID_OUTBOX_ARGUMENT" }),
    );
  });
});
