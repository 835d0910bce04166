import type { ReplicaAnnouncement, ReplicaPresenceStore } from "@axiom-lattice/protocols";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";

const announcement = (overrides: Partial<ReplicaAnnouncement> = {}): ReplicaAnnouncement => ({
  replicaId: fresh("replica"),
  version: "1.2.3",
  startedAt: new Date(Date.now() - 60_000),
  storeMode: "postgresql",
  role: "worker",
  activeRuns: 2,
  outboxCursor: "41",
  outboxLagMs: 12,
  keyVersions: ["v2", "v1", "dev"],
  ...overrides,
});

/**
 * The {@link ReplicaPresenceStore} contract, run against every implementation. `makeStore` may return
 * the same store for every call: tests look only at replicas they announced.
 */
export function replicaPresenceStoreContract(name: string, makeStore: () => Promise<ReplicaPresenceStore>): void {
  describe(`ReplicaPresenceStore contract: ${name}`, () => {
    let store: ReplicaPresenceStore;
    const present = async (replicaId: string) => (await store.listPresent()).find((presence) => presence.replicaId === replicaId);

    beforeAll(async () => {
      store = await makeStore();
    });

    it("lists an announced replica with what it said, until its presence lapses", async () => {
      const said = announcement({ outboxCursor: null });
      const recorded = await store.announce(said, 200);
      expect(recorded).toMatchObject(said);
      expect(recorded.expiresAt.getTime()).toBeGreaterThan(recorded.lastSeenAt.getTime());
      expect(await present(said.replicaId)).toEqual(recorded);
      await sleep(400);
      expect(await present(said.replicaId)).toBeUndefined();
    });

    it("replaces a replica's earlier announcement and extends its presence", async () => {
      const first = await store.announce(announcement({ activeRuns: 0 }), 200);
      const second = await store.announce({ ...first, activeRuns: 5, outboxCursor: "99", version: "2.0.0", role: "api" }, 5_000);
      expect(second).toMatchObject({ replicaId: first.replicaId, activeRuns: 5, outboxCursor: "99", version: "2.0.0", role: "api" });
      await sleep(400);
      expect(await present(first.replicaId)).toEqual(second);
      expect((await store.listPresent()).filter((presence) => presence.replicaId === first.replicaId)).toHaveLength(1);
    });

    it("keeps a replica's key versions in order, and says nothing of those of a replica that did not say", async () => {
      const said = await store.announce(announcement({ keyVersions: ["v3", "v2"] }), 5_000);
      expect((await present(said.replicaId))?.keyVersions).toEqual(["v3", "v2"]);
      const { keyVersions: _, ...older } = announcement();
      const silent = await store.announce(older, 5_000);
      expect(silent).not.toHaveProperty("keyVersions");
      expect(await present(silent.replicaId)).not.toHaveProperty("keyVersions");
    });

    it("lists replicas in id order", async () => {
      const prefix = fresh("ordered");
      for (const suffix of ["b", "a", "c"]) await store.announce(announcement({ replicaId: `${prefix}-${suffix}` }), 5_000);
      const ids = (await store.listPresent()).map((presence) => presence.replicaId).filter((id) => id.startsWith(prefix));
      expect(ids).toEqual([`${prefix}-a`, `${prefix}-b`, `${prefix}-c`]);
    });

    it("withdraws a replica at once, and only it", async () => {
      const leaving = await store.announce(announcement(), 5_000);
      const staying = await store.announce(announcement(), 5_000);
      expect(await store.withdraw(leaving.replicaId)).toBe(true);
      expect(await present(leaving.replicaId)).toBeUndefined();
      expect(await present(staying.replicaId)).toEqual(staying);
      expect(await store.withdraw(leaving.replicaId)).toBe(false);
    });

    it.each([
      ["an empty replica id", { replicaId: "" }, 1_000],
      ["an unknown store mode", { storeMode: "sqlite" }, 1_000],
      ["an unknown role", { role: "scheduler" }, 1_000],
      ["negative active runs", { activeRuns: -1 }, 1_000],
      ["fractional active runs", { activeRuns: 1.5 }, 1_000],
      ["an invalid start time", { startedAt: new Date(Number.NaN) }, 1_000],
      ["an empty outbox cursor", { outboxCursor: "" }, 1_000],
      ["key versions that are not a list", { keyVersions: "v1" }, 1_000],
      ["an empty key version", { keyVersions: ["v1", ""] }, 1_000],
      ["a zero ttl", {}, 0],
      ["an infinite ttl", {}, Number.POSITIVE_INFINITY],
    ])("refuses %s with a typed error and writes nothing", async (_label, overrides, ttlMs) => {
      const refused = announcement(overrides as Partial<ReplicaAnnouncement>);
      await expect(store.announce(refused, ttlMs)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      if (refused.replicaId) expect(await present(refused.replicaId)).toBeUndefined();
    });

    it("refuses to withdraw an empty replica id", async () => {
      await expect(store.withdraw("")).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
    });
  });
}
