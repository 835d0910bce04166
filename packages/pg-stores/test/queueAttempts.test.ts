import { expect, it } from "vitest";
import { useQueueStoreMigratedFrom } from "./queueStoreMigratedFrom";

// Migration 201 on a database that already holds messages: one that was claimed, or handed back after
// streaming, counts as claimed once, so its next run knows it is a re-run; one never claimed, none.
const scope = { tenantId: "acme", assistantId: "a" };
const queueStore = useQueueStoreMigratedFrom(201, "lattice_queue_attempts", async (pool) => {
  await pool.query(
    `INSERT INTO lattice_thread_message_queue (id, thread_id, tenant_id, assistant_id, content, sequence, status, run_status, locked_by, started_at)
     VALUES ('running', 'th', 'acme', 'a', '1', nextval('lattice_thread_message_queue_sequence'), 'processing', 'running', 'r#1', now()),
            ('handed-back', 'th', 'acme', 'a', '2', nextval('lattice_thread_message_queue_sequence'), 'pending', 'pending', NULL, NULL),
            ('never-run', 'th', 'acme', 'a', '3', nextval('lattice_thread_message_queue_sequence'), 'pending', 'pending', NULL, NULL)`,
  );
  await pool.query(
    `INSERT INTO lattice_run_events (tenant_id, assistant_id, thread_id, message_id, event_index, type, data)
     VALUES ('acme', 'a', 'th', 'handed-back', 0, 'message_chunk', '{}')`,
  );
});

it("counts a message claimed, or handed back after streaming, as claimed once; one never run as never claimed", async () => {
  const store = queueStore();
  const attempts = async (id: string) => (await store.getMessage(id, scope))?.attempts;
  expect([await attempts("running"), await attempts("handed-back"), await attempts("never-run")]).toEqual([1, 1, 0]);
  await store.resetProcessingToPending({ ...scope, threadId: "th" });
  const claimed = await store.claimPendingMessages({ ...scope, threadId: "th" }, { owner: "r#2", leaseMs: 60_000, limit: 3 });
  expect(claimed.map((message) => [message.id, message.attempts])).toEqual([
    ["running", 2],
    ["handed-back", 2],
    ["never-run", 1],
  ]);
});
