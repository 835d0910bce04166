// The tasks API on both store kinds: CRUD, filters, bad input refused without a write, references
// checked, another tenant's tasks out of reach, the status rules, racing status changes (one wins,
// one event), the task's outcome and runs, and the lifecycle event stream per tenant.
import type { TaskLifecycleEvent } from "@axiom-lattice/protocols";
import { followSse } from "@axiom-lattice/testing";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { OPENAPI_PATH } from "../src/openapi/apiReference";
import { useGateway, useStoreEnv } from "./support";

const OTHER_TENANT = { "x-tenant-id": "tenant-other" };

/** Every key of an answer the gateway writes is snake_case (free-form values, such as `metadata`, aside). */
const expectSnakeCase = (body: Record<string, unknown>) => expect(Object.keys(body).filter((key) => /[A-Z]/.test(key))).toEqual([]);
const RACERS = 12;

interface TaskBody {
  id: string;
  status: string;
  updated_at: string;
  [field: string]: unknown;
}

describe.each(["memory", "postgresql"])("tasks on %s stores", (stores) => {
  const storeEnv = useStoreEnv(stores);

  const gateway = useGateway(
    async ({ post, app }) => {
      for (const id of ["writer", "outsider"]) expect((await post("/api/assistants", { id, name: id })).statusCode).toBe(201);
      expect((await post("/api/projects", { id: "launch", name: "Launch" })).statusCode).toBe(201);
      const joined = await app.inject({ method: "PUT", url: "/api/projects/launch/bots/writer" });
      expect(joined.statusCode).toBe(200);
    },
    storeEnv,
  );
  const { post, get, del } = gateway;
  const patch = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    gateway.app.inject({ method: "PATCH", url, headers: { "content-type": "application/json", ...headers }, payload: JSON.stringify(payload) });
  const taskIds = async (query = "", headers: Record<string, string> = {}) =>
    (await get(`/api/tasks${query}`, headers)).json<{ tasks: { id: string }[] }>().tasks.map((task) => task.id);
  const create = async (body: Record<string, unknown>): Promise<TaskBody> => {
    const response = await post("/api/tasks", { owner_type: "user", owner_id: "alice", ...body });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<TaskBody>();
  };
  /** Puts a task where the task runtime would (looking behind the API). */
  const runtimeMoves = (id: string, updates: Record<string, unknown>) => gateway.context.stores.tasks.updateTask("default", id, updates);
  /** The lifecycle events published while `action` runs, for `taskId`. */
  const eventsDuring = async (taskId: string, action: () => Promise<unknown>): Promise<TaskLifecycleEvent[]> => {
    const heard: TaskLifecycleEvent[] = [];
    const unsubscribe = gateway.context.notifiers.taskLifecycle.subscribe((event) => {
      if (event.taskId === taskId) heard.push(event);
    });
    try {
      await action();
    } finally {
      unsubscribe();
    }
    return heard;
  };

  it("creates, reads, lists, changes and deletes a task", async () => {
    const created = await create({
      id: "crud",
      title: "  Write the notes  ",
      description: "For Monday",
      priority: 3,
      due_date: "2030-01-02T03:04:05+01:00",
      metadata: { source: "email", sentBy: "Alice" },
      require_review: true,
      dependencies: ["other-task"],
      workspace_id: "ws-1",
      source_id: "mail-9",
    });
    expect(created).toMatchObject({
      id: "crud",
      tenant_id: "default",
      owner_type: "user",
      owner_id: "alice",
      title: "Write the notes",
      status: "pending",
      priority: 3,
      due_date: "2030-01-02T02:04:05.000Z",
      metadata: { source: "email" },
      require_review: true,
      dependencies: ["other-task"],
      workspace_id: "ws-1",
      source_id: "mail-9",
    });
    expect(created.metadata).toEqual({ source: "email", sentBy: "Alice" });
    expect(Object.keys(created).filter((key) => /fencing/i.test(key))).toEqual([]);
    expectSnakeCase(created);
    expect((await get("/api/tasks/crud")).json()).toEqual(created);
    expect(await taskIds()).toContain("crud");

    const changed = await patch("/api/tasks/crud", {
      title: "Write the minutes",
      priority: -1,
      metadata: { source: "chat" },
      due_date: "2031-05-06T07:08:09Z",
      require_review: false,
      dependencies: [],
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({
      title: "Write the minutes",
      priority: -1,
      metadata: { source: "chat" },
      due_date: "2031-05-06T07:08:09.000Z",
      require_review: false,
      dependencies: [],
      description: "For Monday",
      workspace_id: "ws-1",
      status: "pending",
    });
    expect(Date.parse(changed.json<TaskBody>().updated_at)).toBeGreaterThan(Date.parse(created.updated_at));

    expect((await del("/api/tasks/crud")).statusCode).toBe(204);
    expect((await get("/api/tasks/crud")).json()).toMatchObject({ code: "NOT_FOUND" });
    expect((await del("/api/tasks/crud")).statusCode).toBe(404);
    expect((await patch("/api/tasks/crud", { title: "gone" })).statusCode).toBe(404);
  });

  it("documents in the API reference the fields it answers and the query it takes", async () => {
    await create({ id: "documented", title: "Documented", description: "d", due_date: "2030-01-01T00:00:00Z", metadata: {}, require_review: true });
    await runtimeMoves("documented", { status: "failed", failureReason: "x", result: 1, context: { run: { assistantId: "writer", threadId: "t" } } });
    const task = (await get("/api/tasks/documented")).json<TaskBody>();
    const document = (await get(OPENAPI_PATH)).json<{
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
      paths: Record<string, { get: { parameters: { name: string; in: string }[] } }>;
    }>();
    expect(Object.keys(document.components.schemas.Task.properties)).toEqual(expect.arrayContaining(Object.keys(task)));
    expect(Object.keys(document.components.schemas.TaskOutcome.properties).sort()).toEqual(["failure_reason", "result", "status", "task_id"]);
    const query = document.paths["/api/tasks"].get.parameters.filter((parameter) => parameter.in === "query").map((parameter) => parameter.name);
    expect(query.sort()).toEqual(["cursor", "limit", "owner_id", "owner_type", "parent_id", "project_id", "status", "workspace_id"]);
  });

  it("generates an id when the client gives none, and refuses a second task under the same id with 409", async () => {
    expect((await create({ title: "Unnamed id" })).id).toMatch(/^[0-9a-f-]{36}$/);
    await create({ id: "twice", title: "First" });
    const again = await post("/api/tasks", { id: "twice", title: "Second", owner_type: "user", owner_id: "bob" });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: "ALREADY_EXISTS" });
    expect((await get("/api/tasks/twice")).json()).toMatchObject({ title: "First", owner_id: "alice" });
  });

  it("creates an agent's task in a project it is a bot of, and a subtask of it", async () => {
    const parent = await create({ id: "agent-task", title: "Draft", owner_type: "agent", owner_id: "writer", project_id: "launch" });
    expect(parent).toMatchObject({ owner_type: "agent", owner_id: "writer", project_id: "launch", status: "pending" });
    expect((await create({ id: "sub-task", title: "Proofread", parent_id: "agent-task" })).parent_id).toBe("agent-task");
  });

  it("filters the list by status, owner, project, workspace and parent", async () => {
    await create({ id: "f-1", title: "one", owner_id: "filter-owner", workspace_id: "filter-ws" });
    await create({ id: "f-2", title: "two", owner_id: "filter-owner", parent_id: "f-1" });
    await create({ id: "f-3", title: "three", owner_type: "agent", owner_id: "writer", project_id: "launch", workspace_id: "filter-ws" });
    expect((await patch("/api/tasks/f-2", { status: "in_progress" })).statusCode).toBe(200);
    await runtimeMoves("f-3", { status: "review" });

    expect(await taskIds("?owner_id=filter-owner")).toEqual(["f-1", "f-2"]);
    expect(await taskIds("?owner_id=filter-owner&status=in_progress")).toEqual(["f-2"]);
    expect(await taskIds("?workspace_id=filter-ws&status=pending,review")).toEqual(["f-1", "f-3"]);
    expect(await taskIds("?workspace_id=filter-ws&owner_type=agent")).toEqual(["f-3"]);
    expect(await taskIds("?project_id=launch&status=review")).toEqual(["f-3"]);
    expect(await taskIds("?parent_id=f-1")).toEqual(["f-2"]);
    expect(await taskIds("?workspace_id=filter-ws&status=cancelled")).toEqual([]);
  });

  it("pages the list with limit and cursor: every task once, oldest first, filters kept from page to page", async () => {
    const ids = Array.from({ length: 7 }, (_, i) => `paged-${i}`);
    for (const id of ids) await create({ id, title: id, owner_id: "pager", workspace_id: id === "paged-3" ? "elsewhere" : "paging" });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?owner_id=pager&workspace_id=paging&limit=2${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
      const response = await get(`/api/tasks${query}`);
      expect(response.statusCode, response.body).toBe(200);
      const page = response.json<{ tasks: TaskBody[]; next_cursor: string | null; has_more: boolean }>();
      expect(Object.keys(page).sort()).toEqual(["has_more", "next_cursor", "tasks"]);
      expect(page.has_more).toBe(page.next_cursor !== null);
      for (const task of page.tasks) expectSnakeCase(task);
      seen.push(...page.tasks.map((task) => task.id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null);
    expect(seen).toEqual(ids.filter((id) => id !== "paged-3"));
    expect(pages).toBe(3);
    // The default page holds them all, and says it is the last.
    expect((await get("/api/tasks?owner_id=pager")).json()).toMatchObject({ next_cursor: null, has_more: false });
  });

  it("answers 400 INVALID_CURSOR to a cursor no page answered", async () => {
    await create({ id: "cursor-check", title: "Cursor" });
    for (const cursor of ["garbage", Buffer.from(JSON.stringify(["x", 1])).toString("base64url")]) {
      const response = await get(`/api/tasks?cursor=${cursor}`);
      expect(response.statusCode, cursor).toBe(400);
      expect(response.json()).toMatchObject({ code: "INVALID_CURSOR", error: expect.any(String) });
    }
  });

  describe("bad input is refused with a stable code and writes nothing", () => {
    const valid = { owner_type: "user", owner_id: "alice", title: "x" };
    it.each([
      ["an id outside the allowed characters", { ...valid, id: "bad id!" }, 400, "INVALID_REQUEST"],
      ["an over-long id", { ...valid, id: "x".repeat(129) }, 400, "INVALID_REQUEST"],
      ["the id of the event stream", { ...valid, id: "events" }, 400, "INVALID_REQUEST"],
      ["a missing title", { owner_type: "user", owner_id: "alice" }, 400, "INVALID_REQUEST"],
      ["a blank title", { ...valid, title: "   " }, 400, "INVALID_REQUEST"],
      ["an over-long title", { ...valid, title: "x".repeat(501) }, 400, "INVALID_REQUEST"],
      ["a title of the wrong type", { ...valid, title: 42 }, 400, "INVALID_REQUEST"],
      ["a title with a NUL character", { ...valid, title: "a\u0000b" }, 400, "INVALID_REQUEST"],
      ["an unknown owner type", { ...valid, owner_type: "team" }, 400, "INVALID_REQUEST"],
      ["a bad owner id", { ...valid, owner_id: "a/b" }, 400, "INVALID_REQUEST"],
      ["a fractional priority", { ...valid, priority: 1.5 }, 400, "INVALID_REQUEST"],
      ["a priority beyond 32 bits", { ...valid, priority: 2 ** 31 }, 400, "INVALID_REQUEST"],
      ["a due date that is no date-time", { ...valid, due_date: "tomorrow" }, 400, "INVALID_REQUEST"],
      ["metadata that is no object", { ...valid, metadata: ["a"] }, 400, "INVALID_REQUEST"],
      ["dependencies that are no ids", { ...valid, dependencies: ["ok", "not ok"] }, 400, "INVALID_REQUEST"],
      ["a context (the runtime's to write)", { ...valid, context: { run: { assistantId: "writer", threadId: "t" } } }, 400, "INVALID_REQUEST"],
      ["a status", { ...valid, status: "completed" }, 400, "INVALID_REQUEST"],
      ["a result", { ...valid, result: "done" }, 400, "INVALID_REQUEST"],
      ["an unknown field", { ...valid, assignee: "me" }, 400, "INVALID_REQUEST"],
      ["an unknown project", { ...valid, project_id: "nowhere" }, 404, "NOT_FOUND"],
      ["an agent owner that is no assistant", { ...valid, owner_type: "agent", owner_id: "ghost" }, 404, "NOT_FOUND"],
      ["an agent owner that is no bot of the project", { ...valid, owner_type: "agent", owner_id: "outsider", project_id: "launch" }, 409, "NOT_A_PROJECT_MEMBER"],
      ["an unknown parent", { ...valid, parent_id: "no-parent" }, 404, "NOT_FOUND"],
    ])("on create: %s (%i %s)", async (_, body, status, code) => {
      const before = await taskIds();
      const response = await post("/api/tasks", body);
      expect(response.statusCode, response.body).toBe(status);
      expect(response.json()).toMatchObject({ code });
      expect(await taskIds()).toEqual(before);
    });

    it("on a body over the size limit (413 PAYLOAD_TOO_LARGE)", async () => {
      const before = await taskIds();
      const response = await post("/api/tasks", { ...valid, metadata: { blob: "x".repeat(5 * 1024 * 1024) } });
      expect(response.statusCode).toBe(413);
      expect(response.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
      expect(await taskIds()).toEqual(before);
    });

    it("on change: wrong types, runtime fields and unknown fields leave the task as it was", async () => {
      await create({ id: "steady", title: "Steady" });
      const before = (await get("/api/tasks/steady")).json();
      for (const body of [
        {},
        { title: 7 },
        { title: "" },
        { status: "done" },
        { id: "renamed" },
        { owner_id: "mallory" },
        { project_id: "launch" },
        { context: { run: {} } },
        { result: 1 },
        { failure_reason: "x" },
        { title: "ok", extra: true },
        { due_date: "soon" },
      ]) {
        const response = await patch("/api/tasks/steady", body);
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json()).toMatchObject({ code: "INVALID_REQUEST" });
      }
      expect((await get("/api/tasks/steady")).json()).toEqual(before);
    });

    it("on query filters and ids in the path", async () => {
      for (const query of ["?status=done", "?status=pending,", "?limit=0", "?limit=1001", "?limit=1.5", "?offset=1", "?ownerId=alice", "?owner_type=team", "?sort=title"]) {
        const response = await get(`/api/tasks${query}`);
        expect(response.statusCode, query).toBe(400);
        expect(response.json()).toMatchObject({ code: "INVALID_REQUEST" });
      }
      for (const response of [
        await get(`/api/tasks/${"x".repeat(129)}`),
        await get("/api/tasks/bad%20id/result"),
        await get("/api/tasks/bad%20id/runs"),
        await patch("/api/tasks/bad%20id", { title: "x" }),
        await del("/api/tasks/bad%20id"),
      ]) {
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ code: "INVALID_REQUEST" });
      }
    });
  });

  describe("status changes", () => {
    it("moves a user's task between any statuses, announcing each change once", async () => {
      await create({ id: "chores", title: "Chores" });
      for (const status of ["in_progress", "review", "pending", "completed", "cancelled", "failed"]) {
        let response: Awaited<ReturnType<typeof patch>> | undefined;
        const heard = await eventsDuring("chores", async () => (response = await patch("/api/tasks/chores", { status })));
        expect(response?.statusCode, response?.body).toBe(200);
        const task = response!.json<TaskBody>();
        expect(task.status).toBe(status);
        expect(heard).toEqual([{ tenantId: "default", taskId: "chores", status, updatedAt: task.updated_at, ownerId: "alice" }]);
      }
    });

    it("refuses a change to the status the task has already, announcing nothing", async () => {
      await create({ id: "same", title: "Same" });
      let response: Awaited<ReturnType<typeof patch>> | undefined;
      expect(await eventsDuring("same", async () => (response = await patch("/api/tasks/same", { status: "pending" })))).toEqual([]);
      expect(response?.statusCode).toBe(409);
      expect(response?.json()).toMatchObject({ code: "INVALID_TASK_STATE" });
    });

    it("lets a client approve or reject an agent's work in review, and nothing else", async () => {
      await create({ id: "agent-work", title: "Draft", owner_type: "agent", owner_id: "writer", project_id: "launch" });
      for (const [from, to] of [
        ["pending", "in_progress"],
        ["pending", "completed"],
        ["pending", "cancelled"],
        ["in_progress", "completed"],
        ["in_progress", "review"],
        ["review", "pending"],
        ["review", "cancelled"],
        ["failed", "pending"],
      ]) {
        await runtimeMoves("agent-work", { status: from });
        const before = (await get("/api/tasks/agent-work")).json();
        const response = await patch("/api/tasks/agent-work", { status: to, title: "Renamed on the way" });
        expect({ from, to, status: response.statusCode, code: response.json().code }).toEqual({ from, to, status: 409, code: "INVALID_TASK_STATE" });
        expect((await get("/api/tasks/agent-work")).json()).toEqual(before);
      }
      for (const verdict of ["completed", "failed"]) {
        await runtimeMoves("agent-work", { status: "review" });
        const response = await patch("/api/tasks/agent-work", { status: verdict });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toMatchObject({ status: verdict });
      }
      // Other fields of an agent's task stay the client's to change.
      expect((await patch("/api/tasks/agent-work", { priority: 9 })).json()).toMatchObject({ priority: 9, status: "failed" });
    });

    it(`of ${RACERS} concurrent identical changes exactly one wins and is announced once; the rest answer 409`, async () => {
      for (const [id, body] of [
        ["race-user", { title: "Race", owner_type: "user", owner_id: "alice" }],
        ["race-agent", { title: "Race", owner_type: "agent", owner_id: "writer", project_id: "launch" }],
      ] as const) {
        await create({ id, ...body });
        if (body.owner_type === "agent") await runtimeMoves(id, { status: "review" });
        let answers: Awaited<ReturnType<typeof patch>>[] = [];
        const heard = await eventsDuring(id, async () => {
          answers = await Promise.all(Array.from({ length: RACERS }, () => patch(`/api/tasks/${id}`, { status: "completed" })));
        });
        const statuses = answers.map((answer) => answer.statusCode).sort();
        expect(statuses).toEqual([200, ...Array<number>(RACERS - 1).fill(409)]);
        for (const answer of answers.filter((answer) => answer.statusCode === 409)) expect(answer.json()).toMatchObject({ code: "INVALID_TASK_STATE" });
        expect(heard.map((event) => event.status)).toEqual(["completed"]);
        const winner = answers.find((answer) => answer.statusCode === 200)!.json<TaskBody>();
        expect(heard[0].updatedAt).toBe(winner.updated_at);
      }
    });
  });

  it("refuses to delete a task in progress (409 TASK_BUSY), keeping it", async () => {
    await create({ id: "busy", title: "Busy" });
    expect((await patch("/api/tasks/busy", { status: "in_progress" })).statusCode).toBe(200);
    const refused = await del("/api/tasks/busy");
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: "TASK_BUSY" });
    expect((await get("/api/tasks/busy")).statusCode).toBe(200);
    expect((await patch("/api/tasks/busy", { status: "cancelled" })).statusCode).toBe(200);
    expect((await del("/api/tasks/busy")).statusCode).toBe(204);
  });

  it("answers the task's outcome, with its result or failure reason once it has one", async () => {
    await create({ id: "outcome", title: "Outcome", owner_type: "agent", owner_id: "writer" });
    expect((await get("/api/tasks/outcome/result")).json()).toEqual({ task_id: "outcome", status: "pending" });
    await runtimeMoves("outcome", { status: "completed", result: { summary: "done", pages: 3 } });
    expect((await get("/api/tasks/outcome/result")).json()).toEqual({ task_id: "outcome", status: "completed", result: { summary: "done", pages: 3 } });
    await runtimeMoves("outcome", { status: "failed", failureReason: "orphaned" });
    expect((await get("/api/tasks/outcome/result")).json()).toMatchObject({ status: "failed", failure_reason: "orphaned" });
  });

  it("lists the runs of the task's thread as the thread's own route does; none before it started", async () => {
    await create({ id: "with-runs", title: "Runs", owner_type: "agent", owner_id: "writer" });
    expect((await get("/api/tasks/with-runs/runs")).json()).toEqual({ runs: [], next_cursor: null, has_more: false });

    expect((await post("/api/threads", { thread_id: "task-with-runs", assistant_id: "writer" })).statusCode).toBe(201);
    const run = await post("/api/runs", { assistant_id: "writer", thread_id: "task-with-runs", message: "hello", message_id: "task-run-1", mode: "wait" });
    expect(run.statusCode, run.body).toBe(200);
    await runtimeMoves("with-runs", { context: { run: { assistantId: "writer", threadId: "task-with-runs" } } });
    const runs = (await get("/api/tasks/with-runs/runs")).json<{ runs: { message_id: string; status: string }[] }>();
    expect(runs.runs.map(({ message_id, status }) => ({ message_id, status }))).toEqual([{ message_id: "task-run-1", status: "success" }]);
    expect(runs).toEqual((await get("/api/threads/task-with-runs/runs")).json());
  });

  it("shows the runtime's records in a task's context snake_case, and the resume value as it was given", async () => {
    await create({ id: "with-context", title: "Context", owner_type: "agent", owner_id: "writer" });
    const context = {
      run: { assistantId: "writer", threadId: "task-with-context" },
      caller: { assistantId: "writer", threadId: "the-caller", taskId: "calling-task", messageId: "calling-run" },
      resumed_at: "2030-01-01T00:00:00.000Z",
      resume_value: { keepCase: true },
    };
    await runtimeMoves("with-context", { context });
    const task = (await get("/api/tasks/with-context")).json<TaskBody>();
    expectSnakeCase(task);
    expect(task.context).toEqual({
      run: { assistant_id: "writer", thread_id: "task-with-context" },
      caller: { assistant_id: "writer", thread_id: "the-caller", task_id: "calling-task", message_id: "calling-run" },
      resumed_at: "2030-01-01T00:00:00.000Z",
      resume_value: { keepCase: true },
    });
  });

  it("keeps tasks per tenant: another tenant gets 404 on every route and changes nothing", async () => {
    await create({ id: "mine", title: "Mine", description: "secret" });
    const before = (await get("/api/tasks/mine")).json();

    expect(await taskIds("", OTHER_TENANT)).toEqual([]);
    for (const response of [
      await get("/api/tasks/mine", OTHER_TENANT),
      await get("/api/tasks/mine/result", OTHER_TENANT),
      await get("/api/tasks/mine/runs", OTHER_TENANT),
      await patch("/api/tasks/mine", { title: "taken over" }, OTHER_TENANT),
      await patch("/api/tasks/mine", { status: "completed" }, OTHER_TENANT),
      await del("/api/tasks/mine", OTHER_TENANT),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(response.body).not.toContain("secret");
    }
    expect((await get("/api/tasks/mine")).json()).toEqual(before);

    // Nor can another tenant refer to this tenant's project, assistant or task.
    for (const body of [
      { title: "x", owner_type: "user", owner_id: "eve", project_id: "launch" },
      { title: "x", owner_type: "agent", owner_id: "writer" },
      { title: "x", owner_type: "user", owner_id: "eve", parent_id: "mine" },
    ]) {
      expect((await post("/api/tasks", body, OTHER_TENANT)).statusCode).toBe(404);
    }
    // The same id is the other tenant's own task.
    expect((await post("/api/tasks", { id: "mine", title: "Theirs", owner_type: "user", owner_id: "eve" }, OTHER_TENANT)).statusCode).toBe(201);
    expect((await get("/api/tasks/mine")).json()).toEqual(before);
  });

  describe("the lifecycle event stream", () => {
    let url = "";
    beforeAll(async () => {
      url = `${await gateway.app.listen({ port: 0, host: "127.0.0.1" })}/api/tasks/events`;
    });

    it("delivers each status change of the tenant's tasks once, and never another tenant's", async () => {
      const mine = await followSse(url, {}, "subscribed");
      const theirs = await followSse(url, OTHER_TENANT, "subscribed");
      try {
        await create({ id: "streamed", title: "Streamed" });
        expect((await post("/api/tasks", { id: "their-streamed", title: "Theirs", owner_type: "user", owner_id: "eve" }, OTHER_TENANT)).statusCode).toBe(201);
        const changed = (await patch("/api/tasks/streamed", { status: "completed" })).json<TaskBody>();
        expect((await patch("/api/tasks/their-streamed", { status: "cancelled" }, OTHER_TENANT)).statusCode).toBe(200);
        // A change of the other tenant's task made after ours: once ours has it, our own would have come before.
        await expect.poll(() => theirs.ofType("task_lifecycle").length).toBe(1);
        await expect.poll(() => mine.ofType("task_lifecycle").length).toBe(1);
        expect(mine.ofType("subscribed").map((event) => event.data)).toEqual([{ tenant_id: "default" }]);
        expect(mine.ofType("task_lifecycle").map((event) => event.data)).toEqual([
          { tenant_id: "default", task_id: "streamed", status: "completed", updated_at: changed.updated_at, owner_id: "alice" },
        ]);
        expect(theirs.ofType("task_lifecycle").map((event) => event.data)).toMatchObject([{ tenant_id: "tenant-other", task_id: "their-streamed", status: "cancelled" }]);
      } finally {
        await mine.close();
        await theirs.close();
      }
    });

    it("stops listening when the client goes away", async () => {
      const notifier = gateway.context.notifiers.taskLifecycle;
      const subscribe = notifier.subscribe.bind(notifier);
      let listening = 0;
      const spy = vi.spyOn(notifier, "subscribe").mockImplementation((listener) => {
        const unsubscribe = subscribe(listener);
        listening++;
        return () => {
          listening--;
          unsubscribe();
        };
      });
      try {
        const follower = await followSse(url, {}, "subscribed");
        expect(listening).toBe(1);
        await follower.close();
        await expect.poll(() => listening).toBe(0);
      } finally {
        spy.mockRestore();
      }
    });
  });
});
