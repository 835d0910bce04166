import type { AssistantStore, CreateAssistantRequest } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { pagedListContract } from "./pagedListContract";
import { JSON_DEPTH_BOUND, nestedObject } from "./jsonShapes";

const omitKeys = <T extends object, K extends keyof T>(value: T, ...keys: K[]): Omit<T, K> =>
  Object.fromEntries(Object.entries(value).filter(([key]) => !(keys as string[]).includes(key))) as Omit<T, K>;

const request = (id?: string): CreateAssistantRequest => ({
  ...(id === undefined ? {} : { id }),
  name: "Helper",
  model: { provider: "scripted", model: "echo", temperature: 0 },
  systemPrompt: "Be brief.",
  tools: ["search", "calculator"],
});

/**
 * The {@link AssistantStore} contract. Every implementation runs this same suite, so their semantics
 * cannot drift. `makeStore` may return the same store for every call.
 */
export function assistantStoreContract(name: string, makeStore: () => Promise<AssistantStore>): void {
  describe(`AssistantStore contract: ${name}`, () => {
    let store: AssistantStore;
    beforeAll(async () => {
      store = await makeStore();
    });

    it("creates an assistant with defaults and reads it back", async () => {
      const tenant = fresh("tenant");
      const created = await store.createAssistant(tenant, request("a1"));
      expect(created).toMatchObject({ ...request("a1"), tenantId: tenant, graph: "react" });
      expect(created.createdAt).toBeInstanceOf(Date);
      expect(await store.getAssistant(tenant, "a1")).toEqual(created);
      const minimal = await store.createAssistant(tenant, { name: "Minimal", model: { provider: "scripted" } });
      expect(minimal).toMatchObject({ name: "Minimal", graph: "react", tools: [], model: { provider: "scripted" } });
      expect(minimal.systemPrompt).toBeUndefined();
      expect(minimal.id).toMatch(/\S/);
      expect((await store.listAssistants(tenant, { limit: 100 })).items.map((assistant) => assistant.id)).toEqual(["a1", minimal.id]);
    });

    it("keeps the graph an assistant runs, the ReAct agent's or a deployed one's, through updates and versions", async () => {
      const tenant = fresh("tenant");
      await store.createAssistant(tenant, { ...request("g1"), graph: "my_graph" });
      expect((await store.getAssistant(tenant, "g1"))?.graph).toBe("my_graph");
      await store.updateAssistant(tenant, "g1", { graph: "other.graph-2" });
      expect((await store.listAssistantVersions(tenant, "g1", { limit: 10, offset: 0 }))?.map((version) => version.graph)).toEqual(["other.graph-2", "my_graph"]);
    });

    it("keeps only known model settings", async () => {
      const tenant = fresh("tenant");
      const created = await store.createAssistant(tenant, { name: "x", model: { provider: "openai", stray: "dropped" } as never });
      expect(created.model).toEqual({ provider: "openai" });
      expect((await store.getAssistant(tenant, created.id))?.model).toEqual({ provider: "openai" });
    });

    it("refuses an id the tenant already uses, also when racers use it at once", async () => {
      const tenant = fresh("tenant");
      await store.createAssistant(tenant, request("same"));
      await expect(store.createAssistant(tenant, { ...request("same"), name: "Other" })).rejects.toMatchObject({ code: "ALREADY_EXISTS", kind: "assistant" });
      expect((await store.getAssistant(tenant, "same"))?.name).toBe("Helper");
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => store.createAssistant(tenant, request("raced"))));
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    });

    it("isolates tenants: the same id in two tenants is two assistants, invisible to each other", async () => {
      const [a, b] = [fresh("tenant"), fresh("tenant")];
      await store.createAssistant(a, request("shared"));
      expect(await store.getAssistant(b, "shared")).toBeNull();
      expect((await store.listAssistants(b, { limit: 100 })).items).toEqual([]);
      expect(await store.updateAssistant(b, "shared", { name: "Hijacked" })).toBeNull();
      expect(await store.deleteAssistant(b, "shared")).toBe(false);
      await store.createAssistant(b, { ...request("shared"), name: "B's" });
      expect((await store.getAssistant(a, "shared"))?.name).toBe("Helper");
      expect(await store.deleteAssistant(b, "shared")).toBe(true);
      expect((await store.getAssistant(a, "shared"))?.name).toBe("Helper");
    });

    it("updates only the given fields and deletes", async () => {
      const tenant = fresh("tenant");
      const created = await store.createAssistant(tenant, request("a"));
      const updated = await store.updateAssistant(tenant, "a", { name: "Renamed", tools: [] });
      expect(updated).toMatchObject({ ...request("a"), name: "Renamed", tools: [], createdAt: created.createdAt });
      expect(updated!.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());
      expect(await store.getAssistant(tenant, "a")).toEqual(updated);
      expect(await store.updateAssistant(tenant, "missing", { name: "x" })).toBeNull();
      expect(await store.deleteAssistant(tenant, "a")).toBe(true);
      expect(await store.deleteAssistant(tenant, "a")).toBe(false);
    });

    it("keeps the LangGraph API's fields, merges metadata on update, and counts a version per update", async () => {
      const tenant = fresh("tenant");
      const fields = {
        description: "Answers briefly",
        metadata: { team: "support", tags: ["a", "b"], nested: { level: 1 } },
        graphConfig: { recursion_limit: 10, configurable: { region: "eu" } },
        graphContext: { tone: "dry" },
      };
      const created = await store.createAssistant(tenant, { ...request("lg"), ...fields });
      expect(created).toMatchObject({ ...fields, version: 1 });
      expect(await store.getAssistant(tenant, "lg")).toEqual(created);
      const plain = await store.createAssistant(tenant, request("plain"));
      expect(plain).toMatchObject({ metadata: {}, graphConfig: {}, graphContext: {}, version: 1 });
      expect(plain.description).toBeUndefined();

      const renamed = await store.updateAssistant(tenant, "lg", { name: "Renamed" });
      expect(renamed).toMatchObject({ ...fields, name: "Renamed", version: 2 });
      const relabelled = await store.updateAssistant(tenant, "lg", { metadata: { team: "sales", added: true }, graphContext: {} });
      // Metadata merged by top-level key; config and context replaced.
      expect(relabelled?.metadata).toEqual({ ...fields.metadata, team: "sales", added: true });
      expect(relabelled).toMatchObject({ graphContext: {}, graphConfig: fields.graphConfig, version: 3 });
      expect(await store.getAssistant(tenant, "lg")).toEqual(relabelled);
    });

    it("records every create and update as a version: newest first, filtered by metadata, paged", async () => {
      const tenant = fresh("tenant");
      const created = await store.createAssistant(tenant, { ...request("v"), metadata: { stage: "draft" }, graphContext: { tone: "dry" } });
      await store.updateAssistant(tenant, "v", { name: "Second", metadata: { stage: "review" } });
      const third = await store.updateAssistant(tenant, "v", { tools: [], metadata: { approved: true } });
      const all = { limit: 10, offset: 0 };
      const versions = await store.listAssistantVersions(tenant, "v", all);
      expect(versions?.map((version) => version.version)).toEqual([3, 2, 1]);
      // Each version is the assistant as that write left it, metadata merged as the update merged it.
      expect(versions![2]).toEqual({ ...omitKeys(created, "id", "updatedAt"), assistantId: "v", createdAt: created.updatedAt });
      expect(versions![1]).toMatchObject({ name: "Second", tools: request().tools, metadata: { stage: "review" }, graphContext: { tone: "dry" } });
      expect(versions![0]).toMatchObject({ ...omitKeys(third!, "id", "updatedAt", "createdAt"), assistantId: "v" });
      expect(versions![0].createdAt.getTime()).toBe(third!.updatedAt.getTime());

      expect((await store.listAssistantVersions(tenant, "v", { ...all, metadata: { stage: "review" } }))?.map((version) => version.version)).toEqual([3, 2]);
      expect(await store.listAssistantVersions(tenant, "v", { ...all, metadata: { stage: "gone" } })).toEqual([]);
      expect((await store.listAssistantVersions(tenant, "v", { limit: 1, offset: 1 }))?.map((version) => version.version)).toEqual([2]);
      expect(await store.listAssistantVersions(tenant, "missing", all)).toBeNull();
    });

    it("makes an older version current; the next update takes a number above the highest", async () => {
      const tenant = fresh("tenant");
      const first = await store.createAssistant(tenant, { ...request("cur"), description: "First", metadata: { n: 1 }, graphConfig: { c: 1 } });
      await store.updateAssistant(tenant, "cur", {
        name: "Changed",
        model: { provider: "openai", model: "m", apiKey: "sk-version-two" },
        systemPrompt: "Be long.",
        tools: [],
        description: "Second",
        metadata: { n: 2, extra: true },
        graphConfig: { c: 2 },
        graphContext: { k: 2 },
      });
      const restored = await store.setCurrentAssistantVersion(tenant, "cur", 1);
      expect(restored).toEqual({ ...first, updatedAt: restored!.updatedAt });
      expect(restored!.updatedAt.getTime()).toBeGreaterThanOrEqual(first.updatedAt.getTime());
      expect(await store.getAssistant(tenant, "cur")).toEqual(restored);
      // The version's key is kept as the update wrote it, and comes back with it.
      expect((await store.setCurrentAssistantVersion(tenant, "cur", 2))?.model).toEqual({ provider: "openai", model: "m", apiKey: "sk-version-two" });
      await store.setCurrentAssistantVersion(tenant, "cur", 1);
      const next = await store.updateAssistant(tenant, "cur", { name: "Third" });
      expect(next).toMatchObject({ name: "Third", description: "First", metadata: { n: 1 }, version: 3 });
      expect((await store.listAssistantVersions(tenant, "cur", { limit: 10, offset: 0 }))?.map((version) => version.version)).toEqual([3, 2, 1]);

      expect(await store.setCurrentAssistantVersion(tenant, "cur", 4)).toBeNull();
      expect(await store.setCurrentAssistantVersion(tenant, "missing", 1)).toBeNull();
      expect(await store.getAssistant(tenant, "cur")).toEqual(next);
    });

    it("gives racing updates of one assistant distinct version numbers, one each", async () => {
      const tenant = fresh("tenant");
      await store.createAssistant(tenant, request("raced"));
      const racers = 8;
      const updated = await Promise.all(Array.from({ length: racers }, (_, index) => store.updateAssistant(tenant, "raced", { name: `Racer ${index}` })));
      expect(updated.map((assistant) => assistant!.version).sort((a, b) => a - b)).toEqual(Array.from({ length: racers }, (_, index) => index + 2));
      const versions = await store.listAssistantVersions(tenant, "raced", { limit: 100, offset: 0 });
      expect(versions?.map((version) => version.version)).toEqual(Array.from({ length: racers + 1 }, (_, index) => racers + 1 - index));
      // Each version holds the name its own update wrote.
      for (const assistant of updated) expect(versions!.find((version) => version.version === assistant!.version)?.name).toBe(assistant!.name);
    });

    it("keeps versions within their tenant and deletes them with their assistant", async () => {
      const [a, b] = [fresh("tenant"), fresh("tenant")];
      await store.createAssistant(a, request("kept"));
      await store.updateAssistant(a, "kept", { name: "Two" });
      expect(await store.listAssistantVersions(b, "kept", { limit: 10, offset: 0 })).toBeNull();
      expect(await store.setCurrentAssistantVersion(b, "kept", 1)).toBeNull();
      expect((await store.getAssistant(a, "kept"))?.version).toBe(2);

      expect(await store.deleteAssistant(a, "kept")).toBe(true);
      expect(await store.listAssistantVersions(a, "kept", { limit: 10, offset: 0 })).toBeNull();
      await store.createAssistant(a, request("kept"));
      expect((await store.listAssistantVersions(a, "kept", { limit: 10, offset: 0 }))?.map((version) => version.version)).toEqual([1]);
    });

    it.each<[string, (store: AssistantStore, tenant: string) => Promise<unknown>]>([
      ["an empty tenant", (s) => s.createAssistant("", request("x"))],
      ["an empty name", (s, t) => s.createAssistant(t, { ...request("x"), name: "" })],
      // Which graphs exist is the gateway's to check (its deployment): a store refuses only ids no graph could have.
      ["an empty graph id", (s, t) => s.createAssistant(t, { ...request("x"), graph: "" })],
      ["a graph id over 128 characters", (s, t) => s.createAssistant(t, { ...request("x"), graph: "g".repeat(129) })],
      ["a model without provider", (s, t) => s.createAssistant(t, { ...request("x"), model: {} as never })],
      ["a negative temperature", (s, t) => s.createAssistant(t, { ...request("x"), model: { provider: "p", temperature: -1 } })],
      ["tools that are no list", (s, t) => s.createAssistant(t, { ...request("x"), tools: "search" as never })],
      ["an empty tool name", (s, t) => s.createAssistant(t, { ...request("x"), tools: [""] })],
      ["an update with an empty name", (s, t) => s.updateAssistant(t, "x", { name: "" })],
      ["array metadata", (s, t) => s.createAssistant(t, { ...request("x"), metadata: [] as never })],
      ["a graph context nested too deep", (s, t) => s.createAssistant(t, { ...request("x"), graphContext: nestedObject(JSON_DEPTH_BOUND + 1) })],
      ["a graph config with a NUL", (s, t) => s.createAssistant(t, { ...request("x"), graphConfig: { v: "\u0000" } })],
      ["a version list of limit 0", (s, t) => s.listAssistantVersions(t, "x", { limit: 0, offset: 0 })],
      ["a version list at a negative offset", (s, t) => s.listAssistantVersions(t, "x", { limit: 1, offset: -1 })],
      ["a version list filtered by array metadata", (s, t) => s.listAssistantVersions(t, "x", { limit: 1, offset: 0, metadata: [] as never })],
      ["version 0 made current", (s, t) => s.setCurrentAssistantVersion(t, "x", 0)],
    ])("refuses %s with a typed error and writes nothing", async (_label, call) => {
      const tenant = fresh("tenant");
      await expect(call(store, tenant)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect((await store.listAssistants(tenant, { limit: 100 })).items).toEqual([]);
    });

    // Ids descending, creation ascending: ids alone order them the other way.
    pagedListContract("listAssistants", async () => ({
      add: (tenant, index) => store.createAssistant(tenant, { id: `assistant-${99 - index}`, name: "Paged", model: { provider: "scripted" } }),
      remove: async (tenant, assistant) => void (await store.deleteAssistant(tenant, assistant.id)),
      list: (tenant, page) => store.listAssistants(tenant, page),
      idOf: (assistant) => assistant.id,
    }));
  });
}
