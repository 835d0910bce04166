import type { CreateProjectRequest, ProjectStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { JSON_BYTES_BOUND, objectOfJsonBytes } from "./jsonShapes";
import { forgedCursors, walkPages } from "./pageWalk";

/** One page holding every item these tests make. */
const ALL = { limit: 1_000 };

const request = (id?: string): CreateProjectRequest => ({
  ...(id === undefined ? {} : { id }),
  name: "Launch",
  description: "Ship the release",
  metadata: { color: "blue", labels: ["q3"], nested: { depth: 1 } },
});

/**
 * The {@link ProjectStore} contract. Every implementation runs this same suite, so their semantics
 * cannot drift. `makeStore` may return the same store for every call.
 */
export function projectStoreContract(name: string, makeStore: () => Promise<ProjectStore>): void {
  describe(`ProjectStore contract: ${name}`, () => {
    let store: ProjectStore;
    beforeAll(async () => {
      store = await makeStore();
    });

    it("creates a project and reads it back; optional fields stay absent", async () => {
      const tenant = fresh("tenant");
      const created = await store.createProject(tenant, request("p1"));
      expect(created).toMatchObject({ ...request("p1"), tenantId: tenant });
      expect(created.createdAt).toBeInstanceOf(Date);
      expect(created.updatedAt.getTime()).toBe(created.createdAt.getTime());
      expect(await store.getProject(tenant, "p1")).toEqual(created);
      const minimal = await store.createProject(tenant, { id: "p2", name: "Minimal" });
      expect(minimal.description).toBeUndefined();
      expect(minimal.metadata).toBeUndefined();
      expect(await store.getProject(tenant, "p2")).toEqual(minimal);
      const generated = await store.createProject(tenant, { name: "Generated" });
      expect(generated.id).toMatch(/\S/);
      expect(await store.getProject(tenant, "missing")).toBeNull();
    });

    it("lists a tenant's projects in creation order", async () => {
      const tenant = fresh("tenant");
      for (const id of ["a", "b", "c"]) await store.createProject(tenant, request(id));
      expect((await store.listProjects(tenant, ALL)).items.map((project) => project.id)).toEqual(["a", "b", "c"]);
      expect(await store.listProjects(fresh("tenant"), ALL)).toEqual({ items: [], nextCursor: null });
    });

    it("pages a tenant's projects: every project once, in creation order, the last page without a cursor", async () => {
      const tenant = fresh("tenant");
      const ids = ["p0", "p1", "p2", "p3", "p4", "p5", "p6"];
      for (const id of ids) await store.createProject(tenant, request(id));
      const walked = await walkPages((page) => store.listProjects(tenant, page), 3);
      expect(walked.items.map((project) => project.id)).toEqual(ids);
      expect(walked.items).toEqual((await store.listProjects(tenant, ALL)).items);
      expect(await store.listProjects(tenant, { limit: 7 })).toMatchObject({ nextCursor: null });
    });

    it("pages on when projects are deleted and created between pages, neither repeating nor skipping the others", async () => {
      const tenant = fresh("tenant");
      for (const id of ["a", "b", "c", "d", "e", "f"]) await store.createProject(tenant, request(id));
      const walked = await walkPages(
        (page) => store.listProjects(tenant, page),
        2,
        {
          between: async (pageIndex) => {
            if (pageIndex !== 0) return;
            // The cursor's own project, and one not read yet, go; a new one comes after them all.
            await store.deleteProject(tenant, "b");
            await store.deleteProject(tenant, "e");
            await store.createProject(tenant, request("new"));
          },
        },
      );
      expect(walked.items.map((project) => project.id)).toEqual(["a", "b", "c", "d", "f", "new"]);
    });

    it("pages a project's bots and an assistant's projects, every one once, in order", async () => {
      const tenant = fresh("tenant");
      const projectIds = ["p0", "p1", "p2", "p3", "p4"];
      for (const id of projectIds) await store.createProject(tenant, request(id));
      const bots = ["b0", "b1", "b2", "b3", "b4"];
      for (const bot of bots) await store.addBot(tenant, "p0", bot);
      for (const id of [...projectIds].reverse()) await store.addBot(tenant, id, "writer");
      expect((await walkPages((page) => store.listBots(tenant, "p0", page), 2)).items.map((membership) => membership.assistantId)).toEqual([...bots, "writer"]);
      expect((await walkPages((page) => store.listBotProjects(tenant, "writer", page), 2)).items.map((project) => project.id)).toEqual(projectIds);
    });

    it.each(forgedCursors([1.5, "p"]))("refuses a cursor that is %s with INVALID_CURSOR, on every list", async (_label, cursor) => {
      const tenant = fresh("tenant");
      await store.createProject(tenant, request("p"));
      await store.addBot(tenant, "p", "writer");
      await expect(store.listProjects(tenant, { limit: 10, cursor })).rejects.toMatchObject({ code: "INVALID_CURSOR" });
      await expect(store.listBots(tenant, "p", { limit: 10, cursor })).rejects.toMatchObject({ code: "INVALID_CURSOR" });
      await expect(store.listBotProjects(tenant, "writer", { limit: 10, cursor })).rejects.toMatchObject({ code: "INVALID_CURSOR" });
    });

    it.each([0, 1_001, 1.5])("refuses a page limit of %s", async (limit) => {
      await expect(store.listProjects(fresh("tenant"), { limit })).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
    });

    it("keeps only known fields", async () => {
      const tenant = fresh("tenant");
      const created = await store.createProject(tenant, { ...request("p"), stray: "dropped" } as never);
      expect(created).not.toHaveProperty("stray");
      expect(await store.getProject(tenant, "p")).not.toHaveProperty("stray");
    });

    it("refuses an id the tenant already uses, also when racers use it at once", async () => {
      const tenant = fresh("tenant");
      await store.createProject(tenant, request("same"));
      await expect(store.createProject(tenant, { ...request("same"), name: "Other" })).rejects.toMatchObject({ code: "ALREADY_EXISTS", kind: "project" });
      expect((await store.getProject(tenant, "same"))?.name).toBe("Launch");
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => store.createProject(tenant, request("raced"))));
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      expect((await store.listProjects(tenant, ALL)).items.map((project) => project.id)).toEqual(["same", "raced"]);
    });

    it("updates only the given fields, advancing updatedAt, and deletes", async () => {
      const tenant = fresh("tenant");
      const created = await store.createProject(tenant, request("p"));
      const renamed = await store.updateProject(tenant, "p", { name: "Renamed" });
      expect(renamed).toMatchObject({ ...request("p"), name: "Renamed", createdAt: created.createdAt });
      expect(renamed!.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());
      const relabelled = await store.updateProject(tenant, "p", { description: "", metadata: { color: "red" } });
      expect(relabelled).toMatchObject({ name: "Renamed", description: "", metadata: { color: "red" } });
      expect(await store.getProject(tenant, "p")).toEqual(relabelled);
      expect(await store.updateProject(tenant, "missing", { name: "x" })).toBeNull();
      expect(await store.deleteProject(tenant, "p")).toBe(true);
      expect(await store.deleteProject(tenant, "p")).toBe(false);
      expect(await store.getProject(tenant, "p")).toBeNull();
    });

    it("adds bots idempotently, lists them in joining order, and removes them", async () => {
      const tenant = fresh("tenant");
      await store.createProject(tenant, request("p"));
      const first = await store.addBot(tenant, "p", "writer");
      expect(first).toMatchObject({ tenantId: tenant, projectId: "p", assistantId: "writer" });
      expect(first!.createdAt).toBeInstanceOf(Date);
      expect(await store.addBot(tenant, "p", "writer")).toEqual(first);
      const raced = await Promise.all(Array.from({ length: 6 }, () => store.addBot(tenant, "p", "reviewer")));
      expect(new Set(raced.map((membership) => membership!.createdAt.getTime())).size).toBe(1);
      expect((await store.listBots(tenant, "p", ALL)).items.map((membership) => membership.assistantId)).toEqual(["writer", "reviewer"]);
      expect(await store.removeBot(tenant, "p", "writer")).toBe(true);
      expect(await store.removeBot(tenant, "p", "writer")).toBe(false);
      expect((await store.listBots(tenant, "p", ALL)).items).toEqual([raced[0]]);
    });

    it("refuses a bot for a project that does not exist, writing nothing", async () => {
      const tenant = fresh("tenant");
      expect(await store.addBot(tenant, "ghost", "writer")).toBeNull();
      expect((await store.listBots(tenant, "ghost", ALL)).items).toEqual([]);
      expect((await store.listBotProjects(tenant, "writer", ALL)).items).toEqual([]);
      expect(await store.removeBot(tenant, "ghost", "writer")).toBe(false);
    });

    it("lists a bot's projects in creation order; deleting a project ends its memberships", async () => {
      const tenant = fresh("tenant");
      for (const id of ["p1", "p2", "p3"]) await store.createProject(tenant, request(id));
      await store.addBot(tenant, "p3", "writer");
      await store.addBot(tenant, "p1", "writer");
      await store.addBot(tenant, "p2", "reviewer");
      expect((await store.listBotProjects(tenant, "writer", ALL)).items.map((project) => project.id)).toEqual(["p1", "p3"]);
      expect((await store.listBotProjects(tenant, "writer", ALL)).items).toEqual([await store.getProject(tenant, "p1"), await store.getProject(tenant, "p3")]);
      expect(await store.deleteProject(tenant, "p1")).toBe(true);
      expect((await store.listBotProjects(tenant, "writer", ALL)).items.map((project) => project.id)).toEqual(["p3"]);
      // A project created again under the id starts without the old members.
      await store.createProject(tenant, request("p1"));
      expect((await store.listBots(tenant, "p1", ALL)).items).toEqual([]);
    });

    it("isolates tenants: the same ids in two tenants are two projects with their own bots", async () => {
      const [a, b] = [fresh("tenant"), fresh("tenant")];
      await store.createProject(a, request("shared"));
      await store.addBot(a, "shared", "writer");
      expect(await store.getProject(b, "shared")).toBeNull();
      expect((await store.listProjects(b, ALL)).items).toEqual([]);
      expect(await store.updateProject(b, "shared", { name: "Hijacked" })).toBeNull();
      expect(await store.deleteProject(b, "shared")).toBe(false);
      expect(await store.addBot(b, "shared", "intruder")).toBeNull();
      expect(await store.removeBot(b, "shared", "writer")).toBe(false);
      expect((await store.listBots(b, "shared", ALL)).items).toEqual([]);
      expect((await store.listBotProjects(b, "writer", ALL)).items).toEqual([]);

      await store.createProject(b, { ...request("shared"), name: "B's" });
      await store.addBot(b, "shared", "other");
      expect((await store.getProject(a, "shared"))?.name).toBe("Launch");
      expect((await store.listBots(a, "shared", ALL)).items.map((membership) => membership.assistantId)).toEqual(["writer"]);
      expect(await store.deleteProject(b, "shared")).toBe(true);
      expect((await store.getProject(a, "shared"))?.name).toBe("Launch");
      expect((await store.listBotProjects(a, "writer", ALL)).items.map((project) => project.id)).toEqual(["shared"]);
    });

    it.each<[string, (store: ProjectStore, tenant: string) => Promise<unknown>]>([
      ["an empty tenant", (s) => s.createProject("", request("x"))],
      ["a tenant with a NUL character", (s) => s.createProject("t\u0000", request("x"))],
      ["an empty id", (s, t) => s.createProject(t, { ...request(), id: "" })],
      ["an empty name", (s, t) => s.createProject(t, { ...request("x"), name: "" })],
      ["a description that is no string", (s, t) => s.createProject(t, { ...request("x"), description: 5 as never })],
      ["metadata that is no object", (s, t) => s.createProject(t, { ...request("x"), metadata: ["a"] as never })],
      ["metadata beyond the JSON bound", (s, t) => s.createProject(t, { ...request("x"), metadata: objectOfJsonBytes(JSON_BYTES_BOUND + 1) })],
      ["metadata with a NUL character", (s, t) => s.createProject(t, { ...request("x"), metadata: { bad: "\u0000" } })],
      ["an update with an empty name", (s, t) => s.updateProject(t, "x", { name: "" })],
      ["an update with metadata that is no object", (s, t) => s.updateProject(t, "x", { metadata: "m" as never })],
      ["an empty project id on a read", (s, t) => s.getProject(t, "")],
      ["an empty assistant id on a new bot", (s, t) => s.addBot(t, "x", "")],
      ["an empty assistant id on a bot listing", (s, t) => s.listBotProjects(t, "", ALL)],
    ])("refuses %s with a typed error and writes nothing", async (_label, call) => {
      const tenant = fresh("tenant");
      await expect(call(store, tenant)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect((await store.listProjects(tenant, ALL)).items).toEqual([]);
    });

    it("refuses bad arguments to an existing project and leaves it as it was", async () => {
      const tenant = fresh("tenant");
      const created = await store.createProject(tenant, request("x"));
      await store.addBot(tenant, "x", "writer");
      await expect(store.updateProject(tenant, "x", { name: "Fine", metadata: objectOfJsonBytes(JSON_BYTES_BOUND + 1) })).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      await expect(store.addBot(tenant, "x", "a\u0000")).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      await expect(store.removeBot(tenant, "x", "")).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect(await store.getProject(tenant, "x")).toEqual(created);
      expect((await store.listBots(tenant, "x", ALL)).items.map((membership) => membership.assistantId)).toEqual(["writer"]);
    });
  });
}
