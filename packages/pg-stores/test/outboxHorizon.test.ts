// PostgreSQL-only outbox behaviour: the migration, NOTIFY inside the appending transaction, and
// gap-free reading when transactions commit out of id order.
import { OutboxPoller } from "@axiom-lattice/core";
import { createTestDatabase, eventually, type TestDatabase } from "@axiom-lattice/testing";
import type { OutboxEvent } from "@axiom-lattice/protocols";
import { Client } from "pg";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PostgreSQLOutboxStore } from "../src";

let database: TestDatabase;
let store: PostgreSQLOutboxStore;
const clients: Client[] = [];
const pollers: OutboxPoller[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  store = new PostgreSQLOutboxStore({ poolConfig: database.url });
  await store.initialize();
});

afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
  await Promise.all(clients.splice(0).map((client) => client.end()));
});

afterAll(async () => {
  await store.dispose();
  await database.drop();
});

/** A connection of its own, for a transaction the test holds open. */
async function connection(): Promise<Client> {
  const client = new Client({ connectionString: database.url });
  await client.connect();
  clients.push(client);
  return client;
}

/** Resolves once nothing committed waits above the horizon (other sessions' transactions end quickly). */
async function settled(): Promise<void> {
  await eventually("the horizon to pass every committed event", async () => !(await store.readAfter(null, 1)).pendingAboveHorizon);
}

async function startRecordingPoller(owner = "reader") {
  const received: OutboxEvent[] = [];
  const poller = new OutboxPoller({
    store,
    owner,
    intervalMs: 5_000,
    handlers: {
      ooo: async (_payload, event) => {
        received.push(event);
      },
    },
  });
  pollers.push(poller);
  await poller.start();
  // The first poll runs once LISTEN is in place.
  await eventually("the first poll", async () => poller.stats().polls > 0);
  return { poller, received };
}

describe("migration 187", () => {
  it("creates lattice_outbox keyed by (txid, id), with a created_at index, and records itself", async () => {
    const client = await connection();
    const { rows: columns } = await client.query(
      "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 'lattice_outbox' ORDER BY ordinal_position",
    );
    expect(columns.map((c) => [c.column_name, c.data_type, c.is_nullable])).toEqual([
      ["id", "bigint", "NO"],
      ["txid", "xid8", "NO"],
      ["topic", "text", "NO"],
      ["payload", "jsonb", "NO"],
      ["origin_replica_id", "text", "NO"],
      ["created_at", "timestamp with time zone", "NO"],
    ]);
    const { rows: indexes } = await client.query("SELECT indexdef FROM pg_indexes WHERE tablename = 'lattice_outbox' ORDER BY indexname");
    expect(indexes.map((i) => i.indexdef.replace(/^.* USING /, ""))).toEqual(["btree (created_at)", "btree (txid, id)"]);
    const { rows: applied } = await client.query("SELECT name FROM lattice_schema_migrations WHERE version = 187");
    expect(applied).toEqual([{ name: "lattice_outbox" }]);
  });

  it("stamps each row with the writing transaction's id", async () => {
    const client = await connection();
    await client.query("BEGIN");
    const { rows } = await client.query<{ txid: string }>("SELECT pg_current_xact_id()::text AS txid");
    const event = await store.append({ topic: "stamp", payload: {}, originReplicaId: "r" }, { client });
    await client.query("COMMIT");
    expect(event.cursor).toBe(`${rows[0].txid}-${event.id}`);
  });
});

describe("appending inside the caller's transaction", () => {
  it("wakes listeners once per transaction, only when it commits", async () => {
    const listener = await connection();
    const notifications: string[] = [];
    listener.on("notification", (message) => notifications.push(message.payload ?? ""));
    await listener.query("LISTEN lattice_outbox");
    const writer = await connection();
    await writer.query("BEGIN");
    for (let n = 0; n < 3; n += 1) await store.append({ topic: "tx", payload: { n }, originReplicaId: "r" }, { client: writer });
    await sleep(200);
    expect(notifications).toEqual([]);
    await writer.query("COMMIT");
    await eventually("the notification", async () => notifications.length > 0, { timeoutMs: 2_500 });
    await sleep(200);
    // One empty notification: the three appends were coalesced, and nothing rides on NOTIFY.
    expect(notifications).toEqual([""]);
  });

  it("leaves nothing behind and wakes no one when the transaction rolls back", async () => {
    const listener = await connection();
    let notified = 0;
    listener.on("notification", () => (notified += 1));
    await listener.query("LISTEN lattice_outbox");
    await settled();
    const before = await store.latestId();
    const writer = await connection();
    await writer.query("BEGIN");
    await store.append({ topic: "tx", payload: { doomed: true }, originReplicaId: "r" }, { client: writer });
    await writer.query("ROLLBACK");
    await sleep(200);
    await settled();
    expect(notified).toBe(0);
    expect(await store.latestId()).toBe(before);
    expect(await store.listAfter(before, 10)).toEqual([]);
  });
});

describe("gap-free reading", () => {
  it("never passes a row whose transaction is still open, then delivers it and the later one in order", async () => {
    await settled();
    const { poller, received } = await startRecordingPoller();
    const start = poller.stats().cursor;

    const a = await connection();
    const b = await connection();
    await a.query("BEGIN");
    const eventA = await store.append({ topic: "ooo", payload: { name: "A" }, originReplicaId: "writer" }, { client: a });
    await b.query("BEGIN");
    const eventB = await store.append({ topic: "ooo", payload: { name: "B" }, originReplicaId: "writer" }, { client: b });
    const pollsBeforeCommit = poller.stats().polls;
    await b.query("COMMIT");
    expect(BigInt(eventA.id)).toBeLessThan(BigInt(eventB.id));

    // B's commit wakes the poller, which finds B waiting behind A and re-polls quickly (its fallback
    // interval is 5 s, so only the wake-up and the quick re-poll can account for these polls).
    await eventually("quick re-polls while B waits", async () => poller.stats().polls >= pollsBeforeCommit + 3, { timeoutMs: 2_500 });
    // A reader by id alone would now see B, move past it, and never see A.
    const reader = await connection();
    const { rows: byId } = await reader.query<{ id: string }>("SELECT id::text AS id FROM lattice_outbox WHERE id > $1 ORDER BY id", [eventA.id]);
    expect(byId.map((row) => row.id)).toContain(eventB.id);
    // The outbox does not: nothing is delivered, the cursor and latestId stay before A.
    const page = await store.readAfter(start, 10);
    expect(page.events).toEqual([]);
    expect(page.pendingAboveHorizon).toBe(true);
    expect(await store.latestId()).toBe(start);
    expect(received).toEqual([]);
    expect(poller.stats().cursor).toBe(start);
    expect(poller.stats().horizonAgeMs).toBeGreaterThan(0);

    await a.query("COMMIT");
    // Within half the 5 s poll interval: never left to the next regular poll.
    await eventually("A and B", async () => received.length === 2, { timeoutMs: 2_500 });
    expect(received.map((event) => event.payload)).toEqual([{ name: "A" }, { name: "B" }]);
    expect(received.map((event) => event.id)).toEqual([eventA.id, eventB.id]);
    await settled();
    expect(await store.latestId()).toBe(eventB.cursor);
    await eventually("the horizon age to clear", async () => poller.stats().horizonAgeMs === 0);
  });

  it("delivers a row with a smaller id committed after a larger one, because it reads in (txid, id) order", async () => {
    await settled();
    const { received } = await startRecordingPoller();
    const early = await connection();
    const late = await connection();
    // `early` takes its transaction id first, but appends after `late` has drawn a smaller row id.
    await early.query("BEGIN");
    await early.query("SELECT pg_current_xact_id()");
    await late.query("BEGIN");
    const smallId = await store.append({ topic: "ooo", payload: { name: "small-id" }, originReplicaId: "writer" }, { client: late });
    const largeId = await store.append({ topic: "ooo", payload: { name: "large-id" }, originReplicaId: "writer" }, { client: early });
    expect(BigInt(smallId.id)).toBeLessThan(BigInt(largeId.id));
    await early.query("COMMIT");
    await eventually("the large-id row", async () => received.length === 1, { timeoutMs: 2_500 });
    expect(received[0].payload).toEqual({ name: "large-id" });
    // A reader by id would now be past smallId for good. The outbox delivers it all the same.
    await late.query("COMMIT");
    await eventually("the small-id row", async () => received.length === 2, { timeoutMs: 2_500 });
    expect(received.map((event) => event.payload)).toEqual([{ name: "large-id" }, { name: "small-id" }]);
  });
});
