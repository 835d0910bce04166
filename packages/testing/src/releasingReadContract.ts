import type { LeaseStore, MessageQueueStore, PendingMessage } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";

export interface ReleasingReadHarness {
  /** A queue store and the lease store its pending reads release leases in (one database, or one process's stores). */
  open(): Promise<{ queue: MessageQueueStore; leases: LeaseStore }>;
}

const ids = (messages: PendingMessage[]) => messages.map((message) => message.id);

/**
 * A queue's pending read that first releases a lease (`PendingMessagesOptions.afterReleasing`): a
 * thread-run lease holder's last look at its thread. Every queue store with a lease store runs it.
 */
export function releasingReadContract(name: string, harness: ReleasingReadHarness): void {
  describe(`MessageQueueStore pending read after a lease's release: ${name}`, () => {
    let queue: MessageQueueStore;
    let leases: LeaseStore;
    beforeAll(async () => {
      ({ queue, leases } = await harness.open());
    });

    const freshThread = () => ({ tenantId: fresh("tenant"), assistantId: fresh("assistant"), threadId: fresh("thread") });

    it("releases the holder's lease, then answers the thread's pending messages in claim order", async () => {
      const thread = freshThread();
      const key = fresh("thread-run");
      await leases.acquire(key, "holder#1", 60_000);
      const added: string[] = [];
      for (const priority of [0, 0, 5, 0]) added.push((await queue.addMessage({ threadId: thread.threadId, scope: thread, content: {}, priority })).id);
      await queue.claimPendingMessages(thread, { owner: "holder#1", leaseMs: 60_000 });

      const pending = await queue.getPendingMessages(thread, { afterReleasing: { key, holder: "holder#1" } });
      // The claimed one (priority 5) is not pending; the rest in claim order.
      expect(ids(pending)).toEqual([added[0], added[1], added[3]]);
      expect(ids(pending)).toEqual(ids(await queue.getPendingMessages(thread)));
      expect(await leases.get(key)).toBeNull();
      expect(await leases.acquire(key, "next#1", 60_000)).toMatchObject({ holder: "next#1" });
    });

    it("leaves a lease another holder holds, and still reads", async () => {
      const thread = freshThread();
      const key = fresh("thread-run");
      await leases.acquire(key, "owner#1", 60_000);
      const added = await queue.addMessage({ threadId: thread.threadId, scope: thread, content: {} });
      expect(ids(await queue.getPendingMessages(thread, { afterReleasing: { key, holder: "stranger#1" } }))).toEqual([added.id]);
      expect(await leases.get(key)).toMatchObject({ holder: "owner#1" });
      expect(ids(await queue.getPendingMessages(thread, { afterReleasing: { key: fresh("nobody's"), holder: "owner#1" } }))).toEqual([added.id]);
    });

    it("refuses a malformed lease and releases nothing", async () => {
      const thread = freshThread();
      const key = fresh("thread-run");
      await leases.acquire(key, "owner#1", 60_000);
      for (const options of ["x", { afterReleasing: "x" }, { afterReleasing: { key: "", holder: "owner#1" } }, { afterReleasing: { key, holder: 7 } }, { afterReleasing: { holder: "owner#1" } }]) {
        await expect(queue.getPendingMessages(thread, options as never)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      }
      expect(await leases.get(key)).toMatchObject({ holder: "owner#1" });
    });
  });
}
