import type { ProjectRoomStore, ProjectStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { forgedCursors, walkPages } from "./pageWalk";

/** One page holding every room these tests make. */
const ALL = { limit: 1_000 };

/** A room store and the project store whose projects its rooms belong to. */
export interface ProjectRoomStoreHarness {
  projects: ProjectStore;
  rooms: ProjectRoomStore;
}

/**
 * The {@link ProjectRoomStore} contract. Every implementation runs this same suite, so their semantics
 * cannot drift. `makeHarness` may return the same stores for every call.
 */
export function projectRoomStoreContract(name: string, makeHarness: () => Promise<ProjectRoomStoreHarness>): void {
  describe(`ProjectRoomStore contract: ${name}`, () => {
    let projects: ProjectStore;
    let rooms: ProjectRoomStore;
    beforeAll(async () => {
      ({ projects, rooms } = await makeHarness());
    });

    const projectOf = async (tenant: string, id = "p") => {
      await projects.createProject(tenant, { id, name: "Launch" });
      return id;
    };

    it("creates rooms of a project, reads them back and lists them in creation order", async () => {
      const tenant = fresh("tenant");
      const project = await projectOf(tenant);
      const general = await rooms.createRoom(tenant, project, { id: "general", name: "General" });
      expect(general).toMatchObject({ id: "general", tenantId: tenant, projectId: project, name: "General" });
      expect(general!.createdAt).toBeInstanceOf(Date);
      expect(await rooms.getRoom(tenant, project, "general")).toEqual(general);
      const generated = await rooms.createRoom(tenant, project, { name: "Generated" });
      expect(generated!.id).toMatch(/\S/);
      expect((await rooms.listRooms(tenant, project, ALL)).items.map((room) => room.id)).toEqual(["general", generated!.id]);
      expect(await rooms.getRoom(tenant, project, "missing")).toBeNull();
    });

    it("pages a project's rooms: every room once, in creation order, also while rooms are made between pages", async () => {
      const tenant = fresh("tenant");
      const project = await projectOf(tenant);
      const ids = ["r0", "r1", "r2", "r3", "r4"];
      for (const id of ids) await rooms.createRoom(tenant, project, { id, name: id });
      expect((await walkPages((page) => rooms.listRooms(tenant, project, page), 2)).items.map((room) => room.id)).toEqual(ids);
      const walked = await walkPages(
        (page) => rooms.listRooms(tenant, project, page),
        2,
        {
          between: async (pageIndex) => {
            if (pageIndex === 0) await rooms.createRoom(tenant, project, { id: "late", name: "Late" });
          },
        },
      );
      expect(walked.items.map((room) => room.id)).toEqual([...ids, "late"]);
    });

    it.each(forgedCursors([1.5, "r"]))("refuses a cursor that is %s with INVALID_CURSOR", async (_label, cursor) => {
      const tenant = fresh("tenant");
      const project = await projectOf(tenant);
      await expect(rooms.listRooms(tenant, project, { limit: 10, cursor })).rejects.toMatchObject({ code: "INVALID_CURSOR" });
    });

    it("answers null for a project that does not exist, writing nothing", async () => {
      const tenant = fresh("tenant");
      expect(await rooms.createRoom(tenant, "ghost", { id: "r", name: "R" })).toBeNull();
      expect((await rooms.listRooms(tenant, "ghost", ALL)).items).toEqual([]);
      expect(await rooms.getRoom(tenant, "ghost", "r")).toBeNull();
    });

    it("refuses a room id the project already uses, also when racers use it at once; another project may use it", async () => {
      const tenant = fresh("tenant");
      const project = await projectOf(tenant);
      await rooms.createRoom(tenant, project, { id: "same", name: "First" });
      await expect(rooms.createRoom(tenant, project, { id: "same", name: "Second" })).rejects.toMatchObject({ code: "ALREADY_EXISTS", kind: "room" });
      expect((await rooms.getRoom(tenant, project, "same"))?.name).toBe("First");
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => rooms.createRoom(tenant, project, { id: "raced", name: "Raced" })));
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      const other = await projectOf(tenant, "other");
      expect(await rooms.createRoom(tenant, other, { id: "same", name: "Other's" })).toMatchObject({ projectId: other, id: "same" });
      expect((await rooms.listRooms(tenant, project, ALL)).items.map((room) => room.id)).toEqual(["same", "raced"]);
    });

    it("isolates tenants: the same project and room ids in two tenants are two rooms", async () => {
      const [a, b] = [fresh("tenant"), fresh("tenant")];
      await projectOf(a, "shared");
      await rooms.createRoom(a, "shared", { id: "r", name: "A's" });
      expect(await rooms.getRoom(b, "shared", "r")).toBeNull();
      expect((await rooms.listRooms(b, "shared", ALL)).items).toEqual([]);
      expect(await rooms.createRoom(b, "shared", { id: "r", name: "B's" })).toBeNull();
      await projectOf(b, "shared");
      expect(await rooms.createRoom(b, "shared", { id: "r", name: "B's" })).toMatchObject({ tenantId: b, name: "B's" });
      expect((await rooms.getRoom(a, "shared", "r"))?.name).toBe("A's");
    });

    it.each<[string, (rooms: ProjectRoomStore, tenant: string) => Promise<unknown>]>([
      ["an empty tenant", (s) => s.createRoom("", "p", { name: "R" })],
      ["an empty project id", (s, t) => s.createRoom(t, "", { name: "R" })],
      ["an empty room id", (s, t) => s.createRoom(t, "p", { id: "", name: "R" })],
      ["an empty name", (s, t) => s.createRoom(t, "p", { id: "r", name: "" })],
      ["a name with a NUL character", (s, t) => s.createRoom(t, "p", { id: "r", name: "a\u0000" })],
      ["an empty room id on a read", (s, t) => s.getRoom(t, "p", "")],
    ])("refuses %s with a typed error and writes nothing", async (_label, call) => {
      const tenant = fresh("tenant");
      await projectOf(tenant);
      await expect(call(rooms, tenant)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect((await rooms.listRooms(tenant, "p", ALL)).items).toEqual([]);
    });
  });
}
