import { createHash } from "node:crypto";
import type { ApiKeyStore, CreateApiKeyRequest } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { pagedListContract } from "./pagedListContract";

/** A hash as the gateway stores one; the contract never needs the secret behind it. */
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");

const request = (id: string, overrides: Partial<CreateApiKeyRequest> = {}): CreateApiKeyRequest => ({
  id,
  name: "CI pipeline",
  scope: "write",
  secretHash: hashOf(id),
  prefix: "lat_AbCdEfGh",
  ...overrides,
});

/**
 * The {@link ApiKeyStore} contract. Every implementation runs this same suite, so their semantics
 * cannot drift. `makeStore` may return the same store for every call.
 */
export function apiKeyStoreContract(name: string, makeStore: () => Promise<ApiKeyStore>): void {
  describe(`ApiKeyStore contract: ${name}`, () => {
    let store: ApiKeyStore;
    beforeAll(async () => {
      store = await makeStore();
    });

    it("creates a key and reads it back by id and by its secret's hash, never with the hash", async () => {
      const [tenant, id] = [fresh("tenant"), fresh("key")];
      const expiresAt = new Date(Date.now() + 3_600_000);
      const created = await store.createApiKey(tenant, request(id, { scope: "read", assistantIds: ["a", "b", "a"], expiresAt }));
      expect(created).toEqual({ id, tenantId: tenant, name: "CI pipeline", scope: "read", assistantIds: ["a", "b"], prefix: "lat_AbCdEfGh", expiresAt, createdAt: expect.any(Date) });
      expect(await store.getApiKey(tenant, id)).toEqual(created);
      expect(await store.findApiKeyBySecretHash(hashOf(id))).toEqual(created);
      expect(await store.findApiKeyBySecretHash(hashOf(fresh("unknown")))).toBeNull();
      const unrestricted = await store.createApiKey(tenant, request(fresh("key")));
      expect(unrestricted).not.toHaveProperty("assistantIds");
      expect(unrestricted).not.toHaveProperty("expiresAt");
    });

    it("refuses a taken id or a taken secret hash, across tenants, and writes nothing", async () => {
      const id = fresh("key");
      await store.createApiKey(fresh("tenant"), request(id));
      await expect(store.createApiKey(fresh("tenant"), request(id, { secretHash: hashOf(fresh("other")) }))).rejects.toMatchObject({ code: "ALREADY_EXISTS" });
      const other = fresh("key");
      await expect(store.createApiKey(fresh("tenant"), request(other, { secretHash: hashOf(id) }))).rejects.toMatchObject({ code: "ALREADY_EXISTS" });
      expect(await store.findApiKeyBySecretHash(hashOf(id))).toMatchObject({ id });
      const raced = fresh("key");
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => store.createApiKey(fresh("tenant"), request(raced))));
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    });

    it("revokes a key once: the first revocation time stays, and the key is still found, revoked", async () => {
      const [tenant, id] = [fresh("tenant"), fresh("key")];
      await store.createApiKey(tenant, request(id));
      const first = new Date(Date.now() - 1000);
      expect(await store.revokeApiKey(tenant, id, first)).toMatchObject({ id, revokedAt: first });
      expect(await store.revokeApiKey(tenant, id, new Date())).toMatchObject({ revokedAt: first });
      expect(await store.findApiKeyBySecretHash(hashOf(id))).toMatchObject({ revokedAt: first });
      expect(await store.revokeApiKey(tenant, fresh("missing"), new Date())).toBeNull();
    });

    it("records uses, never moving the last use back", async () => {
      const [tenant, id] = [fresh("tenant"), fresh("key")];
      await store.createApiKey(tenant, request(id));
      const later = new Date(Date.now() + 1000);
      await store.recordApiKeyUse(id, later);
      await store.recordApiKeyUse(id, new Date(later.getTime() - 500));
      expect(await store.getApiKey(tenant, id)).toMatchObject({ lastUsedAt: later });
      await store.recordApiKeyUse(fresh("missing"), later);
    });

    it("keeps tenants apart: another tenant's key is as missing", async () => {
      const [a, b, id] = [fresh("tenant"), fresh("tenant"), fresh("key")];
      await store.createApiKey(a, request(id));
      expect(await store.getApiKey(b, id)).toBeNull();
      expect((await store.listApiKeys(b, { limit: 100 })).items).toEqual([]);
      expect(await store.revokeApiKey(b, id, new Date())).toBeNull();
      expect(await store.getApiKey(a, id)).not.toHaveProperty("revokedAt");
    });

    it("refuses bad arguments before writing anything", async () => {
      const tenant = fresh("tenant");
      const refused = [
        request(fresh("key"), { scope: "root" as never }),
        request(fresh("key"), { name: "" }),
        request(fresh("key"), { secretHash: "not-a-hash" }),
        request(fresh("key"), { secretHash: hashOf("upper").toUpperCase() }),
        request(fresh("key"), { assistantIds: [] }),
        request(fresh("key"), { assistantIds: [""] }),
        request(fresh("key"), { assistantIds: Array.from({ length: 101 }, (_, i) => `a${i}`) }),
        request(fresh("key"), { expiresAt: new Date("nonsense") }),
        request(fresh("key"), { prefix: "" }),
        request(""),
      ];
      for (const bad of refused) {
        await expect(store.createApiKey(tenant, bad), JSON.stringify(bad)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      }
      expect((await store.listApiKeys(tenant, { limit: 100 })).items).toEqual([]);
      await expect(store.findApiKeyBySecretHash("lat_plaintext")).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
    });

    // Ids descending, creation ascending: ids alone order them the other way.
    pagedListContract("listApiKeys", async () => ({
      add: (tenant, index) => store.createApiKey(tenant, request(`${tenant}-key-${99 - index}`)),
      list: (tenant, page) => store.listApiKeys(tenant, page),
      idOf: (key) => key.id,
    }));
  });
}
