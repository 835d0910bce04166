// Queue wake-ups through LISTEN/NOTIFY: delivered across pools, malformed payloads ignored, and
// delivered again after the LISTEN connection was killed server-side.
import { type Logger, type ThreadRunScope, setLogger } from "@axiom-lattice/core";
import { type TestDatabase, createTestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgreSQLQueueWakeup, QUEUE_WAKEUP_CHANNEL } from "../../src";
import { eventually } from "../support/eventually";

const LISTENER_APP = "queue-wakeup-test";

let database: TestDatabase;
let admin: Pool;
let sender: PostgreSQLQueueWakeup;
let receiver: PostgreSQLQueueWakeup;
const received: ThreadRunScope[] = [];
const warnings: string[] = [];

beforeAll(async () => {
  const logger: Logger = { debug() {}, info() {}, error() {}, warn: (_fields, msg) => warnings.push(msg ?? ""), child: () => logger };
  setLogger(logger);
  database = await createTestDatabase();
  admin = new Pool({ connectionString: database.url, max: 1 });
  // Separate pools, as on two replicas.
  sender = new PostgreSQLQueueWakeup({ poolConfig: database.url });
  receiver = new PostgreSQLQueueWakeup({ poolConfig: database.url, listenerApplicationName: LISTENER_APP });
  receiver.subscribe((scope) => received.push(scope));
  await eventually("the receiver to listen", async () => (await listeningBackend()) !== undefined);
});

afterAll(async () => {
  await sender.dispose();
  await receiver.dispose();
  await admin.end();
  await database.drop();
});

async function listeningBackend(): Promise<number | undefined> {
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = $1 AND state = 'idle' AND query LIKE 'LISTEN%'`,
    [LISTENER_APP],
  );
  return rows.length === 1 ? rows[0].pid : undefined;
}

const scope = (threadId: string) => ({ tenantId: "tenant", assistantId: "assistant", threadId });
const arrived = (threadId: string) => eventually(`wake-up for ${threadId}`, async () => received.some((got) => got.threadId === threadId), { timeoutMs: 5_000, intervalMs: 5 });

describe("PostgreSQLQueueWakeup", () => {
  it("delivers a thread scope notified on one pool to a subscriber on another", async () => {
    await sender.notify(scope("t1"));
    await arrived("t1");
    expect(received.find((got) => got.threadId === "t1")).toEqual(scope("t1"));
  });

  it("ignores malformed payloads", async () => {
    await admin.query("SELECT pg_notify($1, $2)", [QUEUE_WAKEUP_CHANNEL, "not json"]);
    await admin.query("SELECT pg_notify($1, $2)", [QUEUE_WAKEUP_CHANNEL, JSON.stringify({ threadId: 7 })]);
    await sender.notify(scope("after-garbage"));
    await arrived("after-garbage");
    expect(received.every((got) => typeof got.threadId === "string" && typeof got.tenantId === "string")).toBe(true);
    expect(warnings.filter((warning) => warning.includes("malformed"))).toHaveLength(2);
  });

  it("re-establishes the LISTEN connection after it is killed", async () => {
    const killed = await listeningBackend();
    await admin.query("SELECT pg_terminate_backend($1)", [killed]);
    await eventually("a new listening backend", async () => {
      const pid = await listeningBackend();
      return pid !== undefined && pid !== killed;
    });
    await sender.notify(scope("after-reconnect"));
    await arrived("after-reconnect");
  });
});
