import type { LeaseStore } from "@axiom-lattice/protocols";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";

const freshKey = () => fresh("contract");

/**
 * The {@link LeaseStore} contract. Every implementation runs this same suite, so their semantics
 * cannot drift. `makeStore` may return the same store for every call.
 */
export function leaseStoreContract(name: string, makeStore: () => Promise<LeaseStore>): void {
  describe(`LeaseStore contract: ${name}`, () => {
    let store: LeaseStore;
    beforeAll(async () => {
      store = await makeStore();
    });

    it("acquires a free key and reports it", async () => {
      const key = freshKey();
      const record = await store.acquire(key, "a", 5_000);
      expect(record).toMatchObject({ key, holder: "a" });
      expect(record!.token).toMatch(/^\d+$/);
      expect(record!.expiresAt.getTime()).toBeGreaterThan(record!.acquiredAt.getTime());
      const seen = await store.get(key);
      expect(seen).toMatchObject({ key, holder: "a", token: record!.token });
    });

    it("refuses a key another holder owns", async () => {
      const key = freshKey();
      expect(await store.tryAcquire(key, "a", 5_000)).toBe(true);
      expect(await store.tryAcquire(key, "b", 5_000)).toBe(false);
      expect(await store.acquire(key, "b", 5_000)).toBeNull();
      expect((await store.get(key))?.holder).toBe("a");
    });

    it("lets the same holder re-acquire and keeps its token", async () => {
      const key = freshKey();
      const first = await store.acquire(key, "a", 5_000);
      const again = await store.acquire(key, "a", 10_000);
      expect(again?.token).toBe(first!.token);
      expect(again!.expiresAt.getTime()).toBeGreaterThan(first!.expiresAt.getTime());
    });

    it("lets another holder take an expired lease, with a larger token", async () => {
      const key = freshKey();
      const first = await store.acquire(key, "a", 150);
      await sleep(300);
      expect(await store.get(key)).toBeNull();
      const second = await store.acquire(key, "b", 5_000);
      expect(second?.holder).toBe("b");
      expect(BigInt(second!.token)).toBeGreaterThan(BigInt(first!.token));
    });

    it("lets exactly one of many simultaneous acquisitions of a free key win", async () => {
      const key = freshKey();
      const holders = Array.from({ length: 8 }, (_, i) => `contender-${i}`);
      const records = await Promise.all(holders.map((holder) => store.acquire(key, holder, 5_000)));
      const winners = records.filter((record) => record !== null);
      expect(winners).toHaveLength(1);
      expect(await store.get(key)).toMatchObject({ holder: winners[0]!.holder, token: winners[0]!.token });
    });

    it("changes nothing when a non-holder tries to acquire, renew or release", async () => {
      const key = freshKey();
      await store.acquire(key, "a", 5_000);
      const before = await store.get(key);
      expect(await store.acquire(key, "b", 60_000)).toBeNull();
      expect(await store.renew(key, "b", 60_000)).toBe(false);
      expect(await store.release(key, "b")).toBe(false);
      expect(await store.get(key)).toEqual(before);
    });

    it("keeps the token and acquisition time across renewals", async () => {
      const key = freshKey();
      const first = await store.acquire(key, "a", 5_000);
      expect(await store.renew(key, "a", 20_000)).toBe(true);
      const renewed = await store.get(key);
      expect(renewed).toMatchObject({ token: first!.token, acquiredAt: first!.acquiredAt });
      expect(renewed!.expiresAt.getTime()).toBeGreaterThan(first!.expiresAt.getTime());
    });

    it("leaves a holder whose lease expired and was taken over unable to renew or release it", async () => {
      const key = freshKey();
      await store.acquire(key, "stale", 150);
      await sleep(300);
      const current = await store.acquire(key, "current", 5_000);
      expect(await store.renew(key, "stale", 5_000)).toBe(false);
      expect(await store.release(key, "stale")).toBe(false);
      expect(await store.get(key)).toMatchObject({ holder: "current", token: current!.token });
    });

    it("gives the same holder a new, larger token when it re-acquires after its lease expired", async () => {
      const key = freshKey();
      const first = await store.acquire(key, "a", 150);
      await sleep(300);
      const again = await store.acquire(key, "a", 5_000);
      expect(BigInt(again!.token)).toBeGreaterThan(BigInt(first!.token));
      expect(again!.acquiredAt.getTime()).toBeGreaterThan(first!.acquiredAt.getTime());
    });

    it("gives every new tenure a larger token than the last", async () => {
      const key = freshKey();
      const tokens: bigint[] = [];
      for (const holder of ["a", "b", "c"]) {
        const record = await store.acquire(key, holder, 5_000);
        tokens.push(BigInt(record!.token));
        expect(await store.release(key, holder)).toBe(true);
      }
      expect(tokens[1]).toBeGreaterThan(tokens[0]);
      expect(tokens[2]).toBeGreaterThan(tokens[1]);
    });

    it("renews only for the holder, only while live", async () => {
      const key = freshKey();
      await store.acquire(key, "a", 5_000);
      expect(await store.renew(key, "b", 5_000)).toBe(false);
      expect((await store.get(key))?.holder).toBe("a");
      expect(await store.renew(key, "a", 20_000)).toBe(true);
      expect((await store.get(key))!.expiresAt.getTime()).toBeGreaterThan(Date.now() + 10_000);

      const short = freshKey();
      await store.acquire(short, "a", 100);
      await sleep(250);
      expect(await store.renew(short, "a", 5_000)).toBe(false);
      expect(await store.renew(freshKey(), "a", 5_000)).toBe(false);
    });

    it("releases only for the holder", async () => {
      const key = freshKey();
      await store.acquire(key, "a", 5_000);
      expect(await store.release(key, "b")).toBe(false);
      expect((await store.get(key))?.holder).toBe("a");
      expect(await store.release(key, "a")).toBe(true);
      expect(await store.get(key)).toBeNull();
      expect(await store.release(key, "a")).toBe(false);
      expect(await store.tryAcquire(key, "b", 5_000)).toBe(true);
    });

    it("lists live leases under a prefix in key order, without expired or released ones", async () => {
      const prefix = `${freshKey()}:`;
      await store.acquire(`${prefix}b`, "b", 5_000);
      await store.acquire(`${prefix}a`, "a", 5_000);
      await store.acquire(`${prefix}c`, "c", 5_000);
      await store.acquire(`${prefix}expired`, "x", 100);
      await store.acquire(`${prefix}released`, "r", 5_000);
      await store.release(`${prefix}released`, "r");
      await store.acquire(`${freshKey()}:other`, "o", 5_000);
      await sleep(250);

      const listed = await store.list({ prefix });
      expect(listed.map((lease) => [lease.key, lease.holder])).toEqual([
        [`${prefix}a`, "a"],
        [`${prefix}b`, "b"],
        [`${prefix}c`, "c"],
      ]);
      expect(listed[0]).toEqual(await store.get(`${prefix}a`));
      expect((await store.list({ prefix, limit: 2 })).map((lease) => lease.key)).toEqual([`${prefix}a`, `${prefix}b`]);
      // A prefix is literal text, never a pattern.
      expect(await store.list({ prefix: `${prefix.slice(0, -1)}%` })).toEqual([]);
      expect(await store.list({ prefix: `${prefix.slice(0, -2)}_:` })).toEqual([]);
    });

    it.each([
      ["a zero limit", { limit: 0 }],
      ["a fractional limit", { limit: 1.5 }],
      ["a limit above the bound", { limit: 1_000_000 }],
      ["a non-string prefix", { prefix: 7 }],
    ])("refuses to list with %s", async (_label, options) => {
      await expect(store.list(options as never)).rejects.toMatchObject({ code: "INVALID_LEASE_ARGUMENT" });
    });

    it("answers null for an unknown key", async () => {
      expect(await store.get(freshKey())).toBeNull();
    });

    it.each([
      ["an empty key", () => store.acquire("", "a", 1_000)],
      ["an empty holder", () => store.acquire(freshKey(), "", 1_000)],
      ["a zero ttl", () => store.acquire(freshKey(), "a", 0)],
      ["a negative ttl", () => store.renew(freshKey(), "a", -5)],
      ["an infinite ttl", () => store.tryAcquire(freshKey(), "a", Number.POSITIVE_INFINITY)],
      ["a NaN ttl", () => store.tryAcquire(freshKey(), "a", Number.NaN)],
      ["a non-string key", () => store.get(42 as unknown as string)],
      ["a non-string holder", () => store.release(freshKey(), { id: 1 } as unknown as string)],
    ])("refuses %s with a typed error and writes nothing", async (_label, call) => {
      await expect(call()).rejects.toMatchObject({ code: "INVALID_LEASE_ARGUMENT" });
    });

    it("writes nothing on refused arguments", async () => {
      const key = freshKey();
      await expect(store.acquire(key, "a", -1)).rejects.toThrow();
      expect(await store.get(key)).toBeNull();
      expect(await store.tryAcquire(key, "b", 1_000)).toBe(true);
    });
  });
}
