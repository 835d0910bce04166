import { expect, it } from "vitest";
import { useQueueStoreMigratedFrom } from "./queueStoreMigratedFrom";

// Migration 189 on a database that already holds messages: they stay, and their ids become per tenant.
const queueStore = useQueueStoreMigratedFrom(189, "lattice_message_ids", async (pool) => {
  await pool.query(
    `INSERT INTO lattice_thread_message_queue (id, thread_id, tenant_id, content, sequence, status, run_status)
     VALUES ('before-189', 'th', 'acme', '"acme"', nextval('lattice_thread_message_queue_sequence'), 'pending', 'pending'),
            ('no-tenant', 'th', NULL, '"none"', nextval('lattice_thread_message_queue_sequence'), 'pending', 'pending')`,
  );
});

it("keeps the queued messages and lets another tenant use their ids, never the same tenant or no tenant again", async () => {
  const store = queueStore();
  expect((await store.getMessage("before-189", { tenantId: "acme" }))?.content).toBe("acme");
  expect((await store.getMessage("no-tenant", {}))?.content).toBe("none");

  expect(await store.addMessage({ id: "before-189", threadId: "th", scope: { tenantId: "other" }, content: "other" })).toMatchObject({ tenantId: "other" });
  expect(await store.addMessage({ id: "no-tenant", threadId: "th", scope: { tenantId: "acme" }, content: "acme" })).toMatchObject({ tenantId: "acme" });
  await expect(store.addMessage({ id: "before-189", threadId: "th", scope: { tenantId: "acme", assistantId: "a" }, content: 1 })).rejects.toMatchObject({
    code: "DUPLICATE_MESSAGE",
  });
  await expect(store.addMessage({ id: "no-tenant", threadId: "th", scope: { assistantId: "a" }, content: 1 })).rejects.toMatchObject({ code: "DUPLICATE_MESSAGE" });
  expect((await store.getPendingMessages({ tenantId: "acme", threadId: "th" })).map((message) => message.content)).toEqual(["acme", "acme"]);
});

it("refuses an empty tenant id in the table itself, so '' in the key can only mean no tenant", async () => {
  const store = queueStore();
  const insert = store["pool"].query(
    `INSERT INTO lattice_thread_message_queue (id, thread_id, tenant_id, content, sequence)
     VALUES ('no-tenant', 'th', '', '1', nextval('lattice_thread_message_queue_sequence'))`,
  );
  await expect(insert).rejects.toMatchObject({ code: "23514", constraint: "lattice_thread_message_queue_tenant_id_check" });
});
