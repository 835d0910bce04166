import { type CreateModelProviderRequest, MAX_DISCOVERED_MODELS, type ModelProviderStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { pagedListContract } from "./pagedListContract";

const request = (id: string): CreateModelProviderRequest => ({
  id,
  kind: "openai",
  baseUrl: "https://llm.example.test/v1",
  models: ["small", "large"],
  apiKey: "sk-contract-secret",
});

/**
 * The {@link ModelProviderStore} contract. Every implementation runs this same suite, so their
 * semantics cannot drift. `makeStore` may return the same store for every call.
 */
export function modelProviderStoreContract(name: string, makeStore: () => Promise<ModelProviderStore>): void {
  describe(`ModelProviderStore contract: ${name}`, () => {
    let store: ModelProviderStore;
    beforeAll(async () => {
      store = await makeStore();
    });

    it("creates a provider and reads it back without its key; the credentials read carries the key", async () => {
      const tenant = fresh("tenant");
      const created = await store.createProvider(tenant, request("p1"));
      const { apiKey: _key, ...visible } = request("p1");
      expect(created).toEqual({ ...visible, tenantId: tenant, enabled: true, hasApiKey: true, createdAt: expect.any(Date), updatedAt: expect.any(Date) });
      expect(JSON.stringify(created)).not.toContain("sk-contract-secret");
      expect(await store.getProvider(tenant, "p1")).toEqual(created);
      const { hasApiKey: _has, ...withoutFlag } = created;
      expect(await store.getProviderCredentials(tenant, "p1")).toEqual({ ...withoutFlag, apiKey: "sk-contract-secret" });
      const minimal = await store.createProvider(tenant, { id: "p2", kind: "scripted" });
      expect(minimal).toMatchObject({ id: "p2", kind: "scripted", models: [], hasApiKey: false });
      expect(minimal.baseUrl).toBeUndefined();
      expect(await store.getProviderCredentials(tenant, "p2")).not.toHaveProperty("apiKey");
      expect((await store.listProviders(tenant, { limit: 100 })).items.map((provider) => provider.id)).toEqual(["p1", "p2"]);
    });

    it.each([
      ["another base URL", { baseUrl: "https://attacker.example.test/v1" }],
      ["the kind's default endpoint", { baseUrl: null }],
      ["another kind", { kind: "scripted" }],
    ] as const)("never sends a stored key to %s unless the update gives a key again (SECRETS_REQUIRED)", async (_, move) => {
      const tenant = fresh("tenant");
      await store.createProvider(tenant, request("p"));
      const before = await store.getProviderCredentials(tenant, "p");
      await expect(store.updateProvider(tenant, "p", move)).rejects.toMatchObject({ code: "SECRETS_REQUIRED" });
      expect(await store.getProviderCredentials(tenant, "p")).toEqual(before);
      expect(await store.updateProvider(tenant, "p", { ...move, apiKey: "sk-for-the-new-api" })).toMatchObject({ hasApiKey: true });
      expect((await store.getProviderCredentials(tenant, "p"))?.apiKey).toBe("sk-for-the-new-api");
    });

    it("updates the fields given: null removes the base URL or the key, a new key replaces the old", async () => {
      const tenant = fresh("tenant");
      const created = await store.createProvider(tenant, request("p"));
      const renamed = await store.updateProvider(tenant, "p", { models: ["only"] });
      expect(renamed).toMatchObject({ models: ["only"], baseUrl: "https://llm.example.test/v1", hasApiKey: true });
      expect(renamed!.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());
      await store.updateProvider(tenant, "p", { apiKey: "sk-replaced" });
      expect((await store.getProviderCredentials(tenant, "p"))?.apiKey).toBe("sk-replaced");
      const cleared = await store.updateProvider(tenant, "p", { apiKey: null, baseUrl: null });
      expect(cleared).toMatchObject({ hasApiKey: false, models: ["only"] });
      expect(cleared).not.toHaveProperty("baseUrl");
      expect(await store.getProviderCredentials(tenant, "p")).not.toHaveProperty("apiKey");
      expect(await store.updateProvider(tenant, "missing", { models: [] })).toBeNull();
    });

    it("refuses an id the tenant already uses, also when racers use it at once", async () => {
      const tenant = fresh("tenant");
      await store.createProvider(tenant, request("same"));
      await expect(store.createProvider(tenant, { ...request("same"), apiKey: "sk-other" })).rejects.toMatchObject({ code: "ALREADY_EXISTS", kind: "model provider" });
      expect((await store.getProviderCredentials(tenant, "same"))?.apiKey).toBe("sk-contract-secret");
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => store.createProvider(tenant, request("raced"))));
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    });

    it("isolates tenants", async () => {
      const [a, b] = [fresh("tenant"), fresh("tenant")];
      await store.createProvider(a, request("shared"));
      expect(await store.getProvider(b, "shared")).toBeNull();
      expect(await store.getProviderCredentials(b, "shared")).toBeNull();
      expect((await store.listProviders(b, { limit: 100 })).items).toEqual([]);
      expect(await store.updateProvider(b, "shared", { apiKey: "sk-hijack" })).toBeNull();
      expect(await store.deleteProvider(b, "shared")).toBe(false);
      expect((await store.getProviderCredentials(a, "shared"))?.apiKey).toBe("sk-contract-secret");
    });

    it("deletes a provider once", async () => {
      const tenant = fresh("tenant");
      await store.createProvider(tenant, request("gone"));
      expect(await store.deleteProvider(tenant, "gone")).toBe(true);
      expect(await store.deleteProvider(tenant, "gone")).toBe(false);
      expect(await store.getProvider(tenant, "gone")).toBeNull();
    });

    it("refuses bad arguments before writing anything", async () => {
      const tenant = fresh("tenant");
      const refused = [
        { ...request("x"), kind: "mystery" },
        { ...request("x"), baseUrl: "javascript:alert(1)" },
        { ...request("x"), baseUrl: "file:///etc/passwd" },
        { ...request("x"), baseUrl: "not a url" },
        { ...request("x"), models: [""] },
        { ...request("x"), apiKey: "" },
        { ...request("x"), id: "" },
      ];
      for (const bad of refused) {
        await expect(store.createProvider(tenant, bad as CreateModelProviderRequest), JSON.stringify(bad)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      }
      expect((await store.listProviders(tenant, { limit: 100 })).items).toEqual([]);
      await store.createProvider(tenant, request("kept"));
      await expect(store.updateProvider(tenant, "kept", { baseUrl: "ftp://files.test" })).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect((await store.getProvider(tenant, "kept"))?.baseUrl).toBe("https://llm.example.test/v1");
      await expect(store.getProvider("", "kept")).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
    });

    it("switches a provider off and on, created off when asked; a bad flag is refused", async () => {
      const tenant = fresh("tenant");
      expect(await store.createProvider(tenant, { ...request("off"), enabled: false })).toMatchObject({ enabled: false });
      expect(await store.updateProvider(tenant, "off", { enabled: true })).toMatchObject({ enabled: true, hasApiKey: true });
      expect(await store.updateProvider(tenant, "off", { models: ["m"] })).toMatchObject({ enabled: true });
      expect(await store.updateProvider(tenant, "off", { enabled: false })).toMatchObject({ enabled: false });
      expect(await store.getProviderCredentials(tenant, "off")).toMatchObject({ enabled: false });
      await expect(store.updateProvider(tenant, "off", { enabled: "yes" as unknown as boolean })).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
    });

    it("records a discovery: new models enabled and available, listed by name", async () => {
      const tenant = fresh("tenant");
      await store.createProvider(tenant, request("p"));
      expect(await store.recordDiscovery(tenant, "p", ["zeta", "alpha", "Beta"])).toEqual({ models: 3, added: 3, vanished: 0 });
      const { items, nextCursor } = await store.listModels(tenant, "p", { limit: 10 });
      expect(items.map((model) => model.model)).toEqual(["Beta", "alpha", "zeta"]);
      expect(items[0]).toEqual({ providerId: "p", model: "Beta", enabled: true, available: true, discoveredAt: expect.any(Date), lastSeenAt: expect.any(Date) });
      expect(nextCursor).toBeNull();
    });

    it("a rediscovery keeps the operator's flags, marks vanished models unavailable instead of deleting them, and brings them back", async () => {
      const tenant = fresh("tenant");
      await store.createProvider(tenant, request("p"));
      await store.recordDiscovery(tenant, "p", ["a", "b", "c"]);
      expect(await store.setModelEnabled(tenant, "p", "b", false)).toMatchObject({ model: "b", enabled: false, available: true });
      expect(await store.getModel(tenant, "p", "b")).toMatchObject({ providerId: "p", model: "b", enabled: false });
      expect(await store.getModel(tenant, "p", "never")).toBeNull();
      expect(await store.setModelEnabled(tenant, "p", "c", false)).toMatchObject({ enabled: false });
      expect(await store.recordDiscovery(tenant, "p", ["a", "b", "d"])).toEqual({ models: 3, added: 1, vanished: 1 });
      const flags = async () => (await store.listModels(tenant, "p", { limit: 10 })).items.map(({ model, enabled, available }) => ({ model, enabled, available }));
      expect(await flags()).toEqual([
        { model: "a", enabled: true, available: true },
        { model: "b", enabled: false, available: true },
        { model: "c", enabled: false, available: false },
        { model: "d", enabled: true, available: true },
      ]);
      expect(await store.recordDiscovery(tenant, "p", ["c"])).toEqual({ models: 1, added: 0, vanished: 3 });
      expect((await flags()).find((model) => model.model === "c")).toEqual({ model: "c", enabled: false, available: true });
    });

    it("refuses a discovery over the cap, a name twice or an empty name, writing nothing; null for a missing provider or model", async () => {
      const tenant = fresh("tenant");
      await store.createProvider(tenant, request("p"));
      const tooMany = Array.from({ length: MAX_DISCOVERED_MODELS + 1 }, (_, index) => `m-${index}`);
      for (const bad of [tooMany, ["x", "x"], [""], ["m".repeat(257)]]) await expect(store.recordDiscovery(tenant, "p", bad)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      await expect(store.setModelEnabled(tenant, "p", "x", "no" as unknown as boolean)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect((await store.listModels(tenant, "p", { limit: 10 })).items).toEqual([]);
      expect(await store.recordDiscovery(tenant, "missing", ["x"])).toBeNull();
      expect(await store.setModelEnabled(tenant, "p", "never-discovered", false)).toBeNull();
      expect(await store.recordDiscovery(tenant, "p", tooMany.slice(0, MAX_DISCOVERED_MODELS))).toMatchObject({ models: MAX_DISCOVERED_MODELS, added: MAX_DISCOVERED_MODELS });
    });

    it("a provider's models are its own: another provider's or tenant's are out of reach, and they go with a deleted provider", async () => {
      const tenant = fresh("tenant");
      const other = fresh("tenant");
      await store.createProvider(tenant, request("p"));
      await store.createProvider(tenant, request("q"));
      await store.createProvider(other, request("p"));
      await store.recordDiscovery(tenant, "p", ["shared"]);
      expect((await store.listModels(tenant, "q", { limit: 10 })).items).toEqual([]);
      expect((await store.listModels(other, "p", { limit: 10 })).items).toEqual([]);
      expect(await store.setModelEnabled(other, "p", "shared", false)).toBeNull();
      await store.deleteProvider(tenant, "p");
      await store.createProvider(tenant, request("p"));
      expect((await store.listModels(tenant, "p", { limit: 10 })).items).toEqual([]);
    });

    pagedListContract("listModels", async () => {
      const providers = new Set<string>();
      const ensure = async (tenant: string) => {
        if (providers.has(tenant)) return;
        await store.createProvider(tenant, request("paged"));
        providers.add(tenant);
      };
      const names = new Map<string, string[]>();
      return {
        add: async (tenant, index) => {
          await ensure(tenant);
          const listed = [...(names.get(tenant) ?? []), `model-${String(index).padStart(3, "0")}`];
          names.set(tenant, listed);
          await store.recordDiscovery(tenant, "paged", listed);
          return listed.at(-1)!;
        },
        remove: async (tenant, model) => {
          const listed = (names.get(tenant) ?? []).filter((name) => name !== model);
          names.set(tenant, listed);
          // A vanished model stays listed; only a deleted provider takes its models: re-create it without this one.
          await store.deleteProvider(tenant, "paged");
          await store.createProvider(tenant, request("paged"));
          await store.recordDiscovery(tenant, "paged", listed);
        },
        list: async (tenant, page) => {
          const listed = await store.listModels(tenant, "paged", page);
          return { ...listed, items: listed.items.map((record) => record.model) };
        },
        idOf: (model) => model,
      };
    });

    // Ids descending, creation ascending: ids alone order them the other way.
    pagedListContract("listProviders", async () => ({
      add: (tenant, index) => store.createProvider(tenant, { id: `provider-${99 - index}`, kind: "scripted" }),
      remove: async (tenant, provider) => void (await store.deleteProvider(tenant, provider.id)),
      list: (tenant, page) => store.listProviders(tenant, page),
      idOf: (provider) => provider.id,
    }));
  });
}
