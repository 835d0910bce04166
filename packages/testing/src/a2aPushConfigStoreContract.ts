import type { A2aPushConfig, A2aPushConfigStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";

/**
 * The {@link A2aPushConfigStore} contract. Every implementation runs this same suite, so their
 * semantics cannot drift. `makeStore` may return the same store for every call.
 */
export function a2aPushConfigStoreContract(name: string, makeStore: () => Promise<A2aPushConfigStore>): void {
  describe(`A2aPushConfigStore contract: ${name}`, () => {
    let store: A2aPushConfigStore;
    beforeAll(async () => {
      store = await makeStore();
    });

    const config = (tenantId: string, taskId: string, id: string, extra: Partial<A2aPushConfig> = {}) => ({
      tenantId,
      taskId,
      id,
      url: `https://hooks.example.com/${id}`,
      wireVersion: "1.0" as const,
      ...extra,
    });

    it("sets, reads, lists (oldest first) and deletes a task's configurations", async () => {
      const [tenant, task] = [fresh("tenant"), fresh("task")];
      expect(await store.list(tenant, task)).toEqual([]);
      const first = await store.put(config(tenant, task, "first", { token: "check-me", authentication: { scheme: "Bearer", credentials: "secret" } }));
      expect(first).toMatchObject({ tenantId: tenant, taskId: task, id: "first", url: "https://hooks.example.com/first", token: "check-me", authentication: { scheme: "Bearer", credentials: "secret" } });
      expect(first.createdAt).toBeInstanceOf(Date);
      const second = await store.put(config(tenant, task, "second", { wireVersion: "0.3" }));
      expect(second.token).toBeUndefined();
      expect(second.authentication).toBeUndefined();
      expect(await store.get(tenant, task, "first")).toEqual(first);
      expect((await store.list(tenant, task)).map((each) => [each.id, each.wireVersion])).toEqual([
        ["first", "1.0"],
        ["second", "0.3"],
      ]);
      expect(await store.delete(tenant, task, "first")).toBe(true);
      expect(await store.delete(tenant, task, "first")).toBe(false);
      expect(await store.get(tenant, task, "first")).toBeNull();
      expect((await store.list(tenant, task)).map((each) => each.id)).toEqual(["second"]);
    });

    it("replaces a configuration of the same id, keeping when it was created", async () => {
      const [tenant, task] = [fresh("tenant"), fresh("task")];
      const first = await store.put(config(tenant, task, "hook", { token: "old" }));
      const replaced = await store.put(config(tenant, task, "hook", { url: "https://hooks.example.com/new" }));
      expect(replaced).toMatchObject({ url: "https://hooks.example.com/new", createdAt: first.createdAt });
      expect(replaced.token).toBeUndefined();
      expect(await store.list(tenant, task)).toEqual([replaced]);
    });

    it("isolates tenants and tasks", async () => {
      const [a, b, task, other] = [fresh("tenant"), fresh("tenant"), fresh("task"), fresh("task")];
      await store.put(config(a, task, "hook"));
      expect(await store.list(b, task)).toEqual([]);
      expect(await store.get(b, task, "hook")).toBeNull();
      expect(await store.delete(b, task, "hook")).toBe(false);
      expect(await store.list(a, other)).toEqual([]);
      expect((await store.list(a, task)).map((each) => each.id)).toEqual(["hook"]);
    });

    it.each<[string, (tenant: string, task: string) => Omit<A2aPushConfig, "createdAt">]>([
      ["an empty tenant", (_t, task) => config("", task, "hook")],
      ["an empty id", (t, task) => config(t, task, "")],
      ["an empty url", (t, task) => config(t, task, "hook", { url: "" })],
      ["a token with NUL", (t, task) => config(t, task, "hook", { token: "a\u0000b" })],
      ["an unknown wire version", (t, task) => config(t, task, "hook", { wireVersion: "2.0" as never })],
    ])("refuses %s with a typed error and writes nothing", async (_label, make) => {
      const [tenant, task] = [fresh("tenant"), fresh("task")];
      await expect(store.put(make(tenant, task))).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect(await store.list(tenant, task)).toEqual([]);
    });
  });
}
