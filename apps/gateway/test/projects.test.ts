// The projects API on both store kinds: CRUD, bot membership, snake_case answers, paged lists, bad
// input refused without a write, duplicates, unknown assistants, and another tenant's projects out of
// reach.
import { describe, expect, it } from "vitest";
import { camelKeys, expectBadPagesRefused, walkList } from "./listPages";
import { useGateway, useStoreEnv } from "./support";

const OTHER_TENANT = { "x-tenant-id": "tenant-other" };

describe.each(["memory", "postgresql"])("projects on %s stores", (stores) => {
  const storeEnv = useStoreEnv(stores);

  const gateway = useGateway(
    async ({ post }) => {
      for (const id of ["writer", "reviewer"]) expect((await post("/api/assistants", { id, name: id })).statusCode).toBe(201);
    },
    storeEnv,
  );
  const { post, get, del } = gateway;
  const send = (method: "PATCH" | "PUT", url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    gateway.app.inject({
      method,
      url,
      headers: payload === undefined ? headers : { "content-type": "application/json", ...headers },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const projectIds = async () => (await get("/api/projects")).json<{ projects: { id: string }[] }>().projects.map((project) => project.id);
  const botIds = async (projectId: string) =>
    (await get(`/api/projects/${projectId}/bots`)).json<{ bots: { assistant_id: string }[] }>().bots.map((bot) => bot.assistant_id);

  it("creates, reads, lists, changes and deletes a project", async () => {
    const created = await post("/api/projects", { id: "crud", name: "Launch", description: "Q3 launch", metadata: { owner: "ops" } });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ id: "crud", tenant_id: "default", name: "Launch", description: "Q3 launch", metadata: { owner: "ops" } });
    expect(Object.keys(created.json()).sort()).toEqual(["created_at", "description", "id", "metadata", "name", "tenant_id", "updated_at"]);

    expect((await get("/api/projects/crud")).json()).toMatchObject({ id: "crud", name: "Launch" });
    expect(await projectIds()).toContain("crud");

    const changed = await send("PATCH", "/api/projects/crud", { name: "Relaunch" });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ id: "crud", name: "Relaunch", description: "Q3 launch", metadata: { owner: "ops" } });
    expect(Date.parse(changed.json().updated_at)).toBeGreaterThanOrEqual(Date.parse(created.json().updated_at));

    expect((await del("/api/projects/crud")).statusCode).toBe(204);
    expect((await get("/api/projects/crud")).json()).toMatchObject({ code: "NOT_FOUND" });
    expect((await del("/api/projects/crud")).statusCode).toBe(404);
    expect((await send("PATCH", "/api/projects/crud", { name: "gone" })).statusCode).toBe(404);
  });

  it("answers snake_case, metadata kept as given", async () => {
    const metadata = { ownerTeam: "ops", nested: { camelCase: true } };
    expect((await post("/api/projects", { id: "cased", name: "Cased", metadata })).statusCode).toBe(201);
    const read = (await get("/api/projects/cased")).json();
    expect(camelKeys(read)).toEqual([]);
    expect(read.metadata).toEqual(metadata);
    const listed = (await get("/api/projects")).json();
    expect(camelKeys(listed)).toEqual([]);
    for (const project of listed.projects) expect(camelKeys(project)).toEqual([]);
  });

  it("pages the projects and a project's bots: every one once, in creation order, has_more false at the end", async () => {
    const headers = { "x-tenant-id": "tenant-pages" };
    const ids = Array.from({ length: 7 }, (_, index) => `paged-${index}`);
    for (const id of ids) expect((await post("/api/projects", { id, name: id }, headers)).statusCode).toBe(201);
    const getAs = (url: string) => gateway.get(url, headers);
    const projects = await walkList<{ id: string }>(getAs, "/api/projects", "projects", 3);
    expect(projects.items.map((project) => project.id)).toEqual(ids);
    expect(projects.pages).toBe(3);

    for (const id of ["writer", "reviewer", "editor"]) {
      expect((await post("/api/assistants", { id, name: id }, headers)).statusCode).toBe(201);
      expect((await send("PUT", `/api/projects/paged-0/bots/${id}`, undefined, headers)).statusCode).toBe(200);
    }
    const bots = await walkList<{ assistant_id: string }>(getAs, "/api/projects/paged-0/bots", "bots", 2);
    expect(bots.items.map((bot) => bot.assistant_id)).toEqual(["writer", "reviewer", "editor"]);
  });

  it("refuses a cursor no page answered (400 INVALID_CURSOR) and a limit out of bounds (400), on both lists", async () => {
    expect((await post("/api/projects", { id: "bad-pages", name: "Bad pages" })).statusCode).toBe(201);
    await expectBadPagesRefused(get, "/api/projects");
    await expectBadPagesRefused(get, "/api/projects/bad-pages/bots");
  });

  it("generates an id when the client gives none", async () => {
    const created = await post("/api/projects", { name: "Unnamed id" });
    expect(created.statusCode).toBe(201);
    expect(created.json<{ id: string }>().id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("refuses a second project under the same id with 409, keeping the first", async () => {
    expect((await post("/api/projects", { id: "twice", name: "First" })).statusCode).toBe(201);
    const again = await post("/api/projects", { id: "twice", name: "Second" });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: "ALREADY_EXISTS" });
    expect((await get("/api/projects/twice")).json()).toMatchObject({ name: "First" });
  });

  it("adds bots idempotently, lists them in joining order and removes them", async () => {
    expect((await post("/api/projects", { id: "team", name: "Team" })).statusCode).toBe(201);
    const added = await send("PUT", "/api/projects/team/bots/writer");
    expect(added.statusCode).toBe(200);
    expect(added.json()).toMatchObject({ tenant_id: "default", project_id: "team", assistant_id: "writer" });
    expect(Object.keys(added.json()).sort()).toEqual(["assistant_id", "created_at", "project_id", "tenant_id"]);
    const again = await send("PUT", "/api/projects/team/bots/writer");
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(added.json());
    expect((await send("PUT", "/api/projects/team/bots/reviewer")).statusCode).toBe(200);
    expect(await botIds("team")).toEqual(["writer", "reviewer"]);

    expect((await del("/api/projects/team/bots/writer")).statusCode).toBe(204);
    expect(await botIds("team")).toEqual(["reviewer"]);
    const notMember = await del("/api/projects/team/bots/writer");
    expect(notMember.statusCode).toBe(404);
    expect(notMember.json()).toMatchObject({ code: "NOT_FOUND" });
  });

  it("answers 404 for an unknown assistant or project, adding no bot", async () => {
    expect((await post("/api/projects", { id: "lonely", name: "Lonely" })).statusCode).toBe(201);
    const ghost = await send("PUT", "/api/projects/lonely/bots/ghost");
    expect(ghost.statusCode).toBe(404);
    expect(ghost.json()).toMatchObject({ code: "NOT_FOUND", error: "Assistant ghost not found" });
    expect(await botIds("lonely")).toEqual([]);

    const noProject = await send("PUT", "/api/projects/nowhere/bots/writer");
    expect(noProject.statusCode).toBe(404);
    expect(noProject.json()).toMatchObject({ error: "Project nowhere not found" });
    expect((await get("/api/projects/nowhere/bots")).statusCode).toBe(404);
  });

  it("deleting a project ends its memberships", async () => {
    expect((await post("/api/projects", { id: "short-lived", name: "Short" })).statusCode).toBe(201);
    expect((await send("PUT", "/api/projects/short-lived/bots/writer")).statusCode).toBe(200);
    expect((await del("/api/projects/short-lived")).statusCode).toBe(204);
    expect((await post("/api/projects", { id: "short-lived", name: "Again" })).statusCode).toBe(201);
    expect(await botIds("short-lived")).toEqual([]);
  });

  describe("bad input is refused with a stable code and writes nothing", () => {
    it.each([
      ["an id outside the allowed characters", { id: "bad id!", name: "x" }],
      ["an over-long id", { id: "x".repeat(129), name: "x" }],
      ["a missing name", { id: "no-name" }],
      ["a blank name", { id: "blank", name: "   " }],
      ["a name of the wrong type", { id: "typed", name: 42 }],
      ["an over-long name", { id: "long", name: "x".repeat(201) }],
      ["an over-long description", { id: "long-description", name: "x", description: "x".repeat(10_001) }],
      ["metadata that is no object", { id: "meta", name: "x", metadata: ["a"] }],
      ["an unknown field", { id: "unknown", name: "x", owner: "me" }],
    ])("on create, 400 INVALID_REQUEST: %s", async (_, body) => {
      const before = await projectIds();
      const response = await post("/api/projects", body);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: "INVALID_REQUEST" });
      expect(await projectIds()).toEqual(before);
    });

    it("on a body over the size limit (413 PAYLOAD_TOO_LARGE)", async () => {
      const before = await projectIds();
      const response = await post("/api/projects", { id: "huge", name: "x", metadata: { blob: "x".repeat(5 * 1024 * 1024) } });
      expect(response.statusCode).toBe(413);
      expect(response.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
      expect(await projectIds()).toEqual(before);
    });

    it("on change: wrong types and unknown fields leave the project as it was", async () => {
      expect((await post("/api/projects", { id: "steady", name: "Steady" })).statusCode).toBe(201);
      const before = (await get("/api/projects/steady")).json();
      for (const body of [{ name: 7 }, { name: "" }, { id: "renamed" }, { name: "ok", extra: true }, { description: "x".repeat(10_001) }]) {
        const response = await send("PATCH", "/api/projects/steady", body);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ code: "INVALID_REQUEST" });
      }
      expect((await get("/api/projects/steady")).json()).toEqual(before);
    });

    it("on ids in the path", async () => {
      expect((await post("/api/projects", { id: "path-ids", name: "Path" })).statusCode).toBe(201);
      for (const response of [
        await get(`/api/projects/${"x".repeat(129)}`),
        await send("PUT", "/api/projects/path-ids/bots/bad%20id"),
        await del("/api/projects/bad%20id"),
      ]) {
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ code: "INVALID_REQUEST" });
      }
      expect(await botIds("path-ids")).toEqual([]);
    });
  });

  it("keeps projects per tenant: another tenant gets 404 and changes nothing", async () => {
    expect((await post("/api/projects", { id: "mine", name: "Mine", description: "secret" })).statusCode).toBe(201);
    expect((await send("PUT", "/api/projects/mine/bots/writer")).statusCode).toBe(200);
    const before = (await get("/api/projects/mine")).json();

    expect((await get("/api/projects", OTHER_TENANT)).json()).toEqual({ projects: [], next_cursor: null, has_more: false });
    for (const response of [
      await get("/api/projects/mine", OTHER_TENANT),
      await get("/api/projects/mine/bots", OTHER_TENANT),
      await send("PATCH", "/api/projects/mine", { name: "taken over" }, OTHER_TENANT),
      await send("PUT", "/api/projects/mine/bots/writer", undefined, OTHER_TENANT),
      await del("/api/projects/mine/bots/writer", OTHER_TENANT),
      await del("/api/projects/mine", OTHER_TENANT),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(response.body).not.toContain("secret");
    }
    expect((await get("/api/projects/mine")).json()).toEqual(before);
    expect(await botIds("mine")).toEqual(["writer"]);

    // The same id is the other tenant's own project.
    expect((await post("/api/projects", { id: "mine", name: "Theirs" }, OTHER_TENANT)).statusCode).toBe(201);
    expect((await get("/api/projects/mine")).json()).toEqual(before);
  });
});
