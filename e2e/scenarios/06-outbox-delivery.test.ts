import { followSse } from "@axiom-lattice/testing";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { tokenFor } from "../harness/auth";
import { call, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";

// Long enough for a duplicate to show up: five outbox polls of every replica (one a second by default).
const LATE_DUPLICATE_WAIT_MS = 5_000;

/** A subscriber to `tenantId`'s task events on the replica at `url`. */
const subscribe = async (url: string, tenantId: string) =>
  followSse(`${url}/api/tasks/events`, { authorization: `Bearer ${await tokenFor(tenantId)}`, "x-tenant-id": tenantId }, "subscribed");

describe("scenario 6: outbox delivery of task lifecycle events", () => {
  const cluster = useCluster();

  it("a status change made on A reaches A's subscriber once (directly) and B's once (through the outbox), and no other tenant's", async () => {
    const [a, b] = await cluster.start(2);
    const onA = await subscribe(a.url, "default");
    const onB = await subscribe(b.url, "default");
    const otherTenantOnB = await subscribe(b.url, "tenant-other");
    try {
      await expectOk(call(a.url, "POST", "/api/tasks", { id: "delivered", title: "Deliver me", owner_type: "user", owner_id: "alice" }), 201);
      const changed = await expectOk<{ updated_at: string }>(call(a.url, "PATCH", "/api/tasks/delivered", { status: "completed" }));
      const expected = { tenant_id: "default", task_id: "delivered", status: "completed", updated_at: changed.updated_at, owner_id: "alice" };

      await expect.poll(() => onB.ofType("task_lifecycle").length, { timeout: 30_000 }).toBeGreaterThan(0);
      await sleep(LATE_DUPLICATE_WAIT_MS);
      expect(onA.ofType("task_lifecycle").map((event) => event.data)).toEqual([expected]);
      expect(onB.ofType("task_lifecycle").map((event) => event.data)).toEqual([expected]);
      expect(otherTenantOnB.ofType("task_lifecycle")).toEqual([]);
    } finally {
      await Promise.all([onA.close(), onB.close(), otherTenantOnB.close()]);
    }
  });
});
