import type { PluginSettingStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { pagedListContract } from "./pagedListContract";

/**
 * The {@link PluginSettingStore} contract. Every implementation runs this same suite, so their
 * semantics cannot drift. `makeStore` may return the same store for every call.
 */
export function pluginSettingStoreContract(name: string, makeStore: () => Promise<PluginSettingStore>): void {
  describe(`PluginSettingStore contract: ${name}`, () => {
    let store: PluginSettingStore;
    beforeAll(async () => {
      store = await makeStore();
    });

    it("has no settings for a new tenant, records them and lists them by name", async () => {
      const tenant = fresh("tenant");
      expect((await store.list(tenant, { limit: 100 })).items).toEqual([]);
      const echo = await store.set(tenant, "echo", false);
      expect(echo).toMatchObject({ tenantId: tenant, name: "echo", enabled: false });
      expect(echo.updatedAt).toBeInstanceOf(Date);
      await store.set(tenant, "calc__add", false);
      await store.set(tenant, "Clock", true);
      expect((await store.list(tenant, { limit: 100 })).items.map(({ name, enabled }) => [name, enabled])).toEqual([
        ["Clock", true],
        ["calc__add", false],
        ["echo", false],
      ]);
    });

    it("replaces a setting, also when racers set it at once", async () => {
      const tenant = fresh("tenant");
      const first = await store.set(tenant, "echo", false);
      const second = await store.set(tenant, "echo", true);
      expect(second.enabled).toBe(true);
      expect(second.updatedAt.getTime()).toBeGreaterThanOrEqual(first.updatedAt.getTime());
      expect((await store.list(tenant, { limit: 100 })).items).toEqual([second]);
      await Promise.all(Array.from({ length: 6 }, (_, i) => store.set(tenant, "echo", i % 2 === 0)));
      expect((await store.list(tenant, { limit: 100 })).items).toHaveLength(1);
    });

    it("isolates tenants", async () => {
      const [a, b] = [fresh("tenant"), fresh("tenant")];
      await store.set(a, "echo", false);
      expect((await store.list(b, { limit: 100 })).items).toEqual([]);
      await store.set(b, "echo", true);
      expect((await store.list(a, { limit: 100 })).items.map((setting) => setting.enabled)).toEqual([false]);
    });

    it.each<[string, (store: PluginSettingStore, tenant: string) => Promise<unknown>]>([
      ["an empty tenant", (s) => s.set("", "echo", false)],
      ["an empty name", (s, t) => s.set(t, "", false)],
      ["a name with NUL", (s, t) => s.set(t, "e\u0000cho", false)],
      ["an enabled that is no boolean", (s, t) => s.set(t, "echo", "no" as never)],
    ])("refuses %s with a typed error and writes nothing", async (_label, call) => {
      const tenant = fresh("tenant");
      await expect(call(store, tenant)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect((await store.list(tenant, { limit: 100 })).items).toEqual([]);
    });

    pagedListContract("list", async () => ({
      add: (tenant, index) => store.set(tenant, `tool-${index}`, index % 2 === 0),
      list: (tenant, page) => store.list(tenant, page),
      idOf: (setting) => setting.name,
    }));
  });
}
