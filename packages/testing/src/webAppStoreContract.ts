import type { CreateWebAppRequest, WebAppStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { pagedListContract } from "./pagedListContract";

const request = (id: string): CreateWebAppRequest => ({
  id,
  assistantId: "support-bot",
  name: "Support",
  appearance: { title: "Help", welcome: "Ask away", quicks: [{ label: "Hours", text: "When are you open?" }], accentColor: "#0a7" },
  allowedOrigins: ["https://shop.example.test"],
  previewSecret: "preview-contract-secret",
});

/**
 * The {@link WebAppStore} contract. Every implementation runs this same suite, so their semantics
 * cannot drift. `makeStore` may return the same store for every call.
 */
export function webAppStoreContract(name: string, makeStore: () => Promise<WebAppStore>): void {
  describe(`WebAppStore contract: ${name}`, () => {
    let store: WebAppStore;
    beforeAll(async () => {
      store = await makeStore();
    });

    it("creates a web app as a draft with signed identity, without a secret, and reads it back without its keys", async () => {
      const [tenant, id] = [fresh("tenant"), fresh("app")];
      const created = await store.createWebApp(tenant, request(id));
      const { previewSecret: _preview, ...visible } = request(id);
      expect(created).toEqual({ ...visible, tenantId: tenant, status: "draft", identityMode: "signed", hasSecret: false, createdAt: expect.any(Date), updatedAt: expect.any(Date) });
      expect(JSON.stringify(created)).not.toContain("preview-contract-secret");
      expect(await store.getWebApp(tenant, id)).toEqual(created);
      expect(await store.getWebAppWithKeys(id)).toEqual({ webApp: created, keys: { previewSecret: "preview-contract-secret" } });
      const minimal = await store.createWebApp(tenant, { id: fresh("app"), assistantId: "a", name: "n", previewSecret: "p" });
      expect(minimal).toMatchObject({ appearance: { quicks: [] }, allowedOrigins: [] });
    });

    it("rotates the secret: the replaced one stays valid until the grace ends, one replaced before is forgotten", async () => {
      const [tenant, id] = [fresh("tenant"), fresh("app")];
      await store.createWebApp(tenant, request(id));
      const graceEnd = new Date(Date.now() + 60_000);
      expect(await store.rotateSecret(tenant, id, "secret-1", graceEnd)).toMatchObject({ hasSecret: true });
      expect((await store.getWebAppWithKeys(id))?.keys).toEqual({ previewSecret: "preview-contract-secret", secret: "secret-1" });
      await store.rotateSecret(tenant, id, "secret-2", graceEnd);
      expect((await store.getWebAppWithKeys(id))?.keys).toEqual({ previewSecret: "preview-contract-secret", secret: "secret-2", previous: "secret-1", previousValidUntil: graceEnd });
      await store.rotateSecret(tenant, id, "secret-3", graceEnd);
      expect((await store.getWebAppWithKeys(id))?.keys).toMatchObject({ secret: "secret-3", previous: "secret-2" });
      expect(await store.rotateSecret(tenant, fresh("missing"), "secret", graceEnd)).toBeNull();
    });

    it("updates the fields given; in the appearance, null removes a field and the others stay", async () => {
      const [tenant, id] = [fresh("tenant"), fresh("app")];
      const created = await store.createWebApp(tenant, request(id));
      const changed = await store.updateWebApp(tenant, id, { status: "published", appearance: { welcome: null, accentColor: "#123456" } });
      expect(changed).toMatchObject({
        status: "published",
        name: "Support",
        appearance: { title: "Help", quicks: [{ label: "Hours", text: "When are you open?" }], accentColor: "#123456" },
      });
      expect(changed?.appearance).not.toHaveProperty("welcome");
      expect(changed!.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());
      expect(await store.updateWebApp(tenant, id, { allowedOrigins: [], appearance: { quicks: [] } })).toMatchObject({ allowedOrigins: [], appearance: { title: "Help", quicks: [] } });
      expect(await store.updateWebApp(tenant, fresh("missing"), { name: "x" })).toBeNull();
    });

    it("keeps ids unique across tenants, also when racers use one at once", async () => {
      const id = fresh("app");
      await store.createWebApp(fresh("tenant"), request(id));
      await expect(store.createWebApp(fresh("tenant"), request(id))).rejects.toMatchObject({ code: "ALREADY_EXISTS" });
      const raced = fresh("app");
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => store.createWebApp(fresh("tenant"), request(raced))));
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    });

    it("isolates tenants", async () => {
      const [a, b, id] = [fresh("tenant"), fresh("tenant"), fresh("app")];
      await store.createWebApp(a, request(id));
      expect(await store.getWebApp(b, id)).toBeNull();
      expect((await store.listWebApps(b, { limit: 100 })).items).toEqual([]);
      expect(await store.updateWebApp(b, id, { status: "disabled" })).toBeNull();
      expect(await store.rotateSecret(b, id, "hijack", new Date())).toBeNull();
      expect(await store.addThread(b, id, "t", "user-1")).toBeNull();
      expect(await store.deleteWebApp(b, id)).toBe(false);
      expect(await store.getWebApp(a, id)).toMatchObject({ status: "draft", hasSecret: false });
    });

    it("records who owns a thread, once, and lists each user's own threads", async () => {
      const [tenant, id] = [fresh("tenant"), fresh("app")];
      await store.createWebApp(tenant, request(id));
      const owned = await store.addThread(tenant, id, "thread-1", "ada@example.test");
      expect(owned).toEqual({ webAppId: id, threadId: "thread-1", userId: "ada@example.test", createdAt: expect.any(Date) });
      await store.addThread(tenant, id, "thread-2", "bob");
      await expect(store.addThread(tenant, id, "thread-1", "bob")).rejects.toMatchObject({ code: "ALREADY_EXISTS" });
      expect(await store.getThread(tenant, id, "thread-1")).toEqual(owned);
      expect(await store.getThread(tenant, id, "thread-9")).toBeNull();
      expect((await store.listUserThreads(tenant, id, "ada@example.test", { limit: 10 })).items).toEqual([owned]);
      expect(await store.deleteWebApp(tenant, id)).toBe(true);
      expect(await store.getThread(tenant, id, "thread-1")).toBeNull();
      expect(await store.deleteWebApp(tenant, id)).toBe(false);
    });

    it("refuses bad arguments before writing anything", async () => {
      const tenant = fresh("tenant");
      const refused = [
        { ...request(fresh("app")), status: "live" },
        { ...request(fresh("app")), identityMode: "magic" },
        { ...request(fresh("app")), allowedOrigins: ["https://shop.example.test/path"] },
        { ...request(fresh("app")), allowedOrigins: ["javascript:alert(1)"] },
        { ...request(fresh("app")), appearance: { quicks: [{ label: "x".repeat(41), text: "t" }] } },
        { ...request(fresh("app")), appearance: { quicks: Array.from({ length: 7 }, () => ({ label: "l", text: "t" })) } },
        { ...request(fresh("app")), appearance: { accentColor: "red" } },
        { ...request(fresh("app")), name: "" },
        { ...request(""), previewSecret: "p" },
      ];
      for (const bad of refused) {
        await expect(store.createWebApp(tenant, bad as CreateWebAppRequest), JSON.stringify(bad)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      }
      expect((await store.listWebApps(tenant, { limit: 100 })).items).toEqual([]);
      const id = fresh("app");
      await store.createWebApp(tenant, request(id));
      await expect(store.updateWebApp(tenant, id, { appearance: { quicks: [{ label: "l", text: "t", extra: 1 } as never] } })).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      await expect(store.addThread(tenant, id, "t", "not a user id")).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect(await store.getWebApp(tenant, id)).toMatchObject({ appearance: request(id).appearance });
    });

    // Ids descending, creation ascending: ids alone order them the other way.
    pagedListContract("listWebApps", async () => ({
      add: (tenant, index) => store.createWebApp(tenant, { id: `${tenant}-app-${99 - index}`, assistantId: "a", name: "n", previewSecret: "p" }),
      remove: async (tenant, webApp) => void (await store.deleteWebApp(tenant, webApp.id)),
      list: (tenant, page) => store.listWebApps(tenant, page),
      idOf: (webApp) => webApp.id,
    }));

    pagedListContract("listUserThreads", async () => {
      const webApps = new Map<string, string>();
      const webAppOf = async (tenant: string) => {
        if (!webApps.has(tenant)) webApps.set(tenant, (await store.createWebApp(tenant, request(fresh("app")))).id);
        return webApps.get(tenant)!;
      };
      return {
        add: async (tenant, index) => (await store.addThread(tenant, await webAppOf(tenant), `thread-${99 - index}`, "user-1"))!,
        list: async (tenant, page) => store.listUserThreads(tenant, await webAppOf(tenant), "user-1", page),
        idOf: (thread) => thread.threadId,
      };
    });
  });
}
