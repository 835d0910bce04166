import { createTestDatabase, messageQueueStoreContract, runRecords, type TestDatabase } from "@axiom-lattice/testing";
import type { Pool } from "pg";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import type { QueueScope } from "@axiom-lattice/protocols";
import { PostgreSQLMessageQueueStore, runMigrations } from "../src";
import { CLAIM_MESSAGES, type ClaimStatement, COMPLETE_AND_CLAIM, COMPLETE_MESSAGE, DELETE_THREAD_MESSAGES, ENQUEUE_MESSAGE, GET_MESSAGE, LIST_RUNS, PRUNE_RUNS, RENEW_CLAIMS } from "../src/queue/messageQueueSql";

let database: TestDatabase;
const opened: PostgreSQLMessageQueueStore[] = [];

beforeAll(async () => {
  database = await createTestDatabase("lattice_queue");
});

afterAll(async () => {
  await Promise.all(opened.map((store) => store.dispose()));
  await database?.drop();
});

/** A store on its own pool: separate handles race like separate replicas. */
async function openStore(capacity?: number): Promise<PostgreSQLMessageQueueStore> {
  const store = new PostgreSQLMessageQueueStore({ poolConfig: { connectionString: database.url, max: 4 }, capacity });
  opened.push(store);
  await store.initialize();
  return store;
}

type Explain = (text: string, values: unknown[]) => Promise<string>;

/**
 * Fills the queue table with what `insert` adds (ids starting with `idPrefix`) for this test only, as
 * later tests count what a prune removes, and analyses it; returns EXPLAIN on that data.
 */
async function explainOn(pool: Pool, insert: string, idPrefix: string): Promise<Explain> {
  await pool.query(insert);
  onTestFinished(async () => {
    await pool.query("DELETE FROM lattice_thread_message_queue WHERE id LIKE $1", [`${idPrefix}%`]);
  });
  await pool.query("ANALYZE lattice_thread_message_queue");
  return async (text, values) => (await pool.query<{ "QUERY PLAN": string }>(`EXPLAIN ${text}`, values)).rows.map((row) => row["QUERY PLAN"]).join("\n");
}

/**
 * The plans of the statements `text` runs inside functions, as auto_explain logs them to this client;
 * in a transaction rolled back, so nothing it writes stays.
 */
async function nestedPlans(pool: Pool, text: string, values: unknown[]): Promise<string[]> {
  const client = await pool.connect();
  const plans: string[] = [];
  client.on("notice", (notice) => plans.push(notice.message ?? ""));
  try {
    await client.query("BEGIN");
    await client.query("LOAD 'auto_explain'");
    await client.query("SET LOCAL auto_explain.log_min_duration = 0");
    await client.query("SET LOCAL auto_explain.log_nested_statements = on");
    await client.query("SET LOCAL client_min_messages = log");
    await client.query(text, values);
    return plans;
  } finally {
    await client.query("ROLLBACK");
    client.removeAllListeners("notice");
    client.release();
  }
}

messageQueueStoreContract("PostgreSQL", {
  open: (count, options) => Promise.all(Array.from({ length: count }, () => openStore(options?.capacity))),
});

describe("PostgreSQLMessageQueueStore", () => {
  let store: PostgreSQLMessageQueueStore;
  beforeAll(async () => {
    store = await openStore();
  });

  it.each<[string, QueueScope, string | null, string | null]>([
    ["an absent scope", {}, null, null],
    ["a tenant and assistant", { tenantId: "t", assistantId: "a" }, "t", "a"],
  ])("claims for %s through the claim index in order, locking once via an array", async (_label, scope, tenantId, assistantId) => {
    const pool = store["pool"];
    await pool.query(
      `INSERT INTO lattice_thread_message_queue (id, thread_id, tenant_id, assistant_id, content, sequence, status, run_status)
       SELECT 'plan-' || $1::text || '-' || n, 'plan-thread-' || (n % 50), $2, $3, '{}', nextval('lattice_thread_message_queue_sequence'), 'pending', 'pending'
         FROM generate_series(1, 5000) AS n`,
      [_label, tenantId, assistantId],
    );
    await pool.query("ANALYZE lattice_thread_message_queue");
    const claim = ["plan-thread-7", tenantId, assistantId, "o#1", 1_000, "o", 1, null, null];
    const completion = ["plan-1", "success", null, [], [], []];
    // Each form of each claiming statement: the claim alone, and after a completion; skipping or waiting.
    const statements: Array<[ClaimStatement, unknown[]]> = [
      [CLAIM_MESSAGES, claim],
      [COMPLETE_AND_CLAIM, [...claim, ...completion]],
    ];
    for (const [statement, values] of statements) {
      for (const { text } of [statement.unfenced, statement.fenced]) {
        const { rows } = await pool.query<{ "QUERY PLAN": string }>(`EXPLAIN ${text}`, values);
        const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
        expect(plan).toMatch(/InitPlan/);
        // Rows come locked straight off the claim index in claim order: no sort of the thread's whole queue.
        expect(plan).toMatch(/LockRows[^\n]*\n\s*->\s+Index Scan using lattice_thread_message_queue_claim/);
        // The locked rows are updated by primary key: an id alone could also name another tenant's row.
        // The planner reads the key either row by row or through a bitmap; both go by the array of keys.
        expect(plan).toMatch(/(Index Scan using|Bitmap Index Scan on) lattice_thread_message_queue_pkey[^\n]*\n\s*Index Cond: \(sequence = ANY/);
      }
    }
    expect(await store.claimPendingMessages({ ...scope, threadId: "plan-thread-7" }, { owner: "o#1", leaseMs: 1_000 })).toHaveLength(1);
  });

  it("completes, renews and reads a message through the id index, however many tenants share its id", async () => {
    // 1,000 ids, each used by 5 tenants (the last: no tenant), every fifth row claimed.
    const plan = await explainOn(
      store["pool"],
      `INSERT INTO lattice_thread_message_queue
              (id, thread_id, tenant_id, content, sequence, status, run_status, locked_by, lease_expires_at)
       SELECT 'shared-' || (n % 1000), 'shared-thread-' || (n % 50), CASE WHEN n / 1000 < 4 THEN 't' || (n / 1000) END, '{}',
              nextval('lattice_thread_message_queue_sequence'),
              CASE WHEN n % 5 = 0 THEN 'processing' ELSE 'pending' END, CASE WHEN n % 5 = 0 THEN 'running' ELSE 'pending' END,
              CASE WHEN n % 5 = 0 THEN 'o#' || n END, CASE WHEN n % 5 = 0 THEN now() + interval '1 minute' END
         FROM generate_series(0, 4999) AS n`,
      "shared-",
    );

    for (const statement of [
      plan(COMPLETE_MESSAGE.text, ["shared-5", "o#1005", "success", null, [], [], []]),
      plan(COMPLETE_AND_CLAIM.fenced.text, ["shared-thread-5", "t1", null, "o#1005", 60_000, "o", 1, null, null, "shared-5", "success", null, [], [], []]),
      plan(RENEW_CLAIMS, [["shared-5", "shared-10"], "o#1005", 60_000]),
      plan(GET_MESSAGE, ["shared-5", "t1", null]),
      plan(GET_MESSAGE, ["shared-5", null, null]),
    ]) {
      const text = await statement;
      expect(text).toMatch(/Index Scan (using|on) lattice_thread_message_queue_id_per_tenant /);
      expect(text).not.toMatch(/Seq Scan/);
    }
    expect(await store.renewClaim(["shared-5"], "o#1005", 60_000)).toBe(1);
    expect(await store.completeMessage("shared-5", "o#1005", { status: "success" })).toBe(true);
    expect(await store.getMessage("shared-5", { tenantId: "t1" })).toMatchObject({ status: "completed" });
    expect(await store.getMessage("shared-5", { tenantId: "t2" })).toMatchObject({ status: "processing", lockedBy: "o#2005" });
  });

  it("counts a tenant's queued messages through its open-message index, not its run records", async () => {
    // 20,000 run records and 200 open messages of one tenant, across 100 threads.
    await explainOn(
      store["pool"],
      `INSERT INTO lattice_thread_message_queue (id, thread_id, tenant_id, content, sequence, status, run_status, finished_at)
       SELECT 'count-' || n, 'count-thread-' || (n % 100), 'count-tenant', '{}', nextval('lattice_thread_message_queue_sequence'),
              CASE WHEN n % 100 = 0 THEN 'pending' ELSE 'completed' END, CASE WHEN n % 100 = 0 THEN 'pending' ELSE 'success' END,
              CASE WHEN n % 100 = 0 THEN NULL ELSE now() END
         FROM generate_series(0, 19999) AS n`,
      "count-",
    );
    // The count runs inside the enqueue function (migration 229, called by 230's): auto_explain reports its plan.
    for (const tenantId of ["count-tenant", null]) {
      const plans = await nestedPlans(store["pool"], ENQUEUE_MESSAGE.text, ["count-new-thread", tenantId, null, "count-new", "{}", 0, 100, false, 0, 1_000_000, false]);
      const count = plans.find((text) => text.includes("status IN ('pending', 'processing')"));
      expect(count).toMatch(/Index (Only )?Scan (using|on) lattice_thread_message_queue_tenant_open /);
      expect(count).not.toMatch(/Seq Scan/);
    }
  });

  it("takes back a claim another transaction holds locked by waiting for it, never skipping to the next message", async () => {
    const thread = { threadId: "take-back-locked" };
    const held = await store.addMessage({ ...thread, scope: {}, content: 1 });
    const next = await store.addMessage({ ...thread, scope: {}, content: 2 });
    await store.claimPendingMessages(thread, { owner: "paused#1", leaseMs: 60_000 });
    // A paused holder's late statement on its claim: the row stays locked until its transaction ends.
    const paused = await store["pool"].connect();
    try {
      await paused.query("BEGIN");
      await paused.query("SELECT FROM lattice_thread_message_queue WHERE id = $1 FOR UPDATE", [held.id]);
      let settled = false;
      const taking = store.takeBackAndClaim(thread, { owner: "new#1", leaseMs: 60_000 }).finally(() => (settled = true));
      await sleep(300);
      expect(settled).toBe(false);
      await paused.query("COMMIT");
      expect(await taking).toMatchObject({ reclaimed: 1, claimed: [{ id: held.id, lockedBy: "new#1", attempts: 2 }] });
      expect(await store.getMessage(next.id, {})).toMatchObject({ status: "pending" });
    } finally {
      paused.release();
    }
  });

  it("judges leases by the database clock", async () => {
    const { id } = await store.addMessage({ threadId: "db-clock", scope: {}, content: 1 });
    const [claimed] = await store.claimPendingMessages({ threadId: "db-clock" }, { owner: "o#1", leaseMs: 60_000 });
    const { rows } = await store["pool"].query<{ lease_ms: number }>(
      "SELECT extract(epoch FROM lease_expires_at - locked_at) * 1000 AS lease_ms FROM lattice_thread_message_queue WHERE id = $1",
      [id],
    );
    expect(Number(rows[0].lease_ms)).toBe(60_000);
    expect(claimed.lockedAt!.getTime()).toBe(claimed.startedAt!.getTime());
  });

  it("deletes a thread's messages through the status indexes, and prunes runs through the retention index", async () => {
    const plan = await explainOn(
      store["pool"],
      `INSERT INTO lattice_thread_message_queue (id, thread_id, content, sequence, status, run_status, finished_at)
       SELECT 'lifecycle-' || n, 'lifecycle-thread-' || (n % 50), '{}', nextval('lattice_thread_message_queue_sequence'),
              (ARRAY['pending', 'processing', 'completed'])[1 + n % 3], 'pending',
              CASE WHEN n % 3 = 2 THEN now() - n * interval '1 minute' END
         FROM generate_series(1, 6000) AS n`,
      "lifecycle-",
    );

    // Without the spelled-out status arms no partial index applies: a scan of the whole queue table.
    const deletion = await plan(DELETE_THREAD_MESSAGES, ["lifecycle-thread-7", null, null]);
    for (const index of ["claim", "claims", "run_pages"]) expect(deletion).toContain(`Bitmap Index Scan on lattice_thread_message_queue_${index} `);
    expect(deletion).not.toMatch(/Seq Scan/);
    // A sweep deletes the few runs that aged past the retention since the last one (here 20 of 2,000).
    const pruning = await plan(PRUNE_RUNS, [5940 * 60_000]);
    expect(pruning).toMatch(/Index Scan (using|on) lattice_thread_message_queue_finished /);
    expect(pruning).not.toMatch(/Seq Scan/);
    // A page of runs starts at its cursor in the index (migration 212): the runs before it are not read.
    const page = await plan(LIST_RUNS, ["lifecycle-thread-2", null, null, Date.now() * 1_000 - 60 * 60_000_000, 1, 11]);
    expect(page).toMatch(/Index Scan using lattice_thread_message_queue_run_pages[^\n]*\n\s*Index Cond: \(\(thread_id = [^\n]*ROW\(finished_at, sequence\) >/);

    expect(await store.deleteThreadMessages({ threadId: "lifecycle-thread-7" })).toBe(120);
  });

  it("prunes runs by the database clock, not the replica's", async () => {
    const hour = 60 * 60_000;
    const longAgo = await store.addMessage({ threadId: "prune-clock", scope: {}, content: 1 });
    const lately = await store.addMessage({ threadId: "prune-clock", scope: {}, content: 2 });
    for (const { id } of [longAgo, lately]) {
      await store.claimPendingMessages({ threadId: "prune-clock" }, { owner: "o#1", leaseMs: 60_000 });
      await store.completeMessage(id, "o#1", { status: "success" });
    }
    const finishedMinutesAgo = "UPDATE lattice_thread_message_queue SET finished_at = now() - $2 * interval '1 minute' WHERE id = $1";
    await store["pool"].query(finishedMinutesAgo, [longAgo.id, 120]);
    await store["pool"].query(finishedMinutesAgo, [lately.id, 30]);
    // This replica's clock runs two days ahead: by it, both runs would be older than an hour.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 48 * hour });
    try {
      expect(await store.pruneRunsOlderThan(hour)).toBe(1);
    } finally {
      vi.useRealTimers();
    }
    expect(await store.getMessage(longAgo.id, {})).toBeNull();
    expect((await runRecords(store, { threadId: "prune-clock" })).map((run) => run.id)).toEqual([lately.id]);
  });

  it("refuses a bad capacity before opening a connection", () => {
    expect(() => new PostgreSQLMessageQueueStore({ poolConfig: database.url, capacity: 0 })).toThrow(
      expect.objectContaining({ code: "INVALID_STORE_ARGUMENT" }),
    );
  });

  it("needs no more migration once migrated", async () => {
    expect((await runMigrations(store["pool"])).applied).toEqual([]);
  });
});
