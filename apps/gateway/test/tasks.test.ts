// The tasks API on both store kinds: CRUD, filters, bad input refused without a write, references
// checked, another tenant's tasks out of reach, the status rules, racing status changes (one wins,
// one event), the task's outcome and runs, and the lifecycle event stream per tenant.
import type { TaskLifecycleEvent } from "@axiom-lattice/protocols";
import { followSse } from "@axiom-lattice/testing";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { useGateway, useStoreEnv } from "./support";

const OTHER_TENANT = { "x-tenant-id": "tenant-other" };
const RACERS = 12;

interface TaskBody {
  id: string;
  status: string;
  updatedAt: string;
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
    const response = await post("/api/tasks", { ownerType: "user", ownerId: "alice", ...body });
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
      dueDate: "2030-01-02T03:04:05+01:00",
      metadata: { source: "email" },
      requireReview: true,
      dependencies: ["other-task"],
      workspaceId: "ws-1",
      sourceId: "mail-9",
    });
    expect(created).toMatchObject({
      id: "crud",
      tenantId: "default",
      ownerType: "user",
      ownerId: "alice",
      title: "Write the notes",
      status: "pending",
      priority: 3,
      dueDate: "2030-01-02T02:04:05.000Z",
      metadata: { source: "email" },
      requireReview: true,
      dependencies: ["other-task"],
      workspaceId: "ws-1",
      sourceId: "mail-9",
    });
    expect(created).not.toHaveProperty("fencingToken");
    expect((await get("/api/tasks/crud")).json()).toEqual(created);
    expect(await taskIds()).toContain("crud");

    const changed = await patch("/api/tasks/crud", { title: "Write the minutes", priority: -1, metadata: { source: "chat" } });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ title: "Write the minutes", priority: -1, metadata: { source: "chat" }, description: "For Monday", status: "pending" });
    expect(Date.parse(changed.json<TaskBody>().updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));

    expect((await del("/api/tasks/crud")).statusCode).toBe(204);
    expect((await get("/api/tasks/crud")).json()).toMatchObject({ code: "NOT_FOUND" });
    expect((await del("/api/tasks/crud")).statusCode).toBe(404);
    expect((await patch("/api/tasks/crud", { title: "gone" })).statusCode).toBe(404);
  });

  it("generates an id when the client gives none, and refuses a second task under the same id with 409", async () => {
    expect((await create({ title: "Unnamed id" })).id).toMatch(/^[0-9a-f-]{36}$/);
    await create({ id: "twice", title: "First" });
    const again = await post("/api/tasks", { id: "twice", title: "Second", ownerType: "user", ownerId: "bob" });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: "ALREADY_EXISTS" });
    expect((await get("/api/tasks/twice")).json()).toMatchObject({ title: "First", ownerId: "alice" });
  });

  it("creates an agent's task in a project it is a bot of, and a subtask of it", async () => {
    const parent = await create({ id: "agent-task", title: "Draft", ownerType: "agent", ownerId: "writer", projectId: "launch" });
    expect(parent).toMatchObject({ ownerType: "agent", ownerId: "writer", projectId: "launch", status: "pending" });
    expect((await create({ id: "sub-task", title: "Proofread", parentId: "agent-task" })).parentId).toBe("agent-task");
  });

  it("filters the list by status, owner, project, workspace and parent, with limit and offset", async () => {
    await create({ id: "f-1", title: "one", ownerId: "filter-owner", workspaceId: "filter-ws" });
    await create({ id: "f-2", title: "two", ownerId: "filter-owner", parentId: "f-1" });
    await create({ id: "f-3", title: "three", ownerType: "agent", ownerId: "writer", projectId: "launch", workspaceId: "filter-ws" });
    expect((await patch("/api/tasks/f-2", { status: "in_progress" })).statusCode).toBe(200);
    await runtimeMoves("f-3", { status: "review" });

    expect(await taskIds("?ownerId=filter-owner")).toEqual(["f-1", "f-2"]);
    expect(await taskIds("?ownerId=filter-owner&status=in_progress")).toEqual(["f-2"]);
    expect(await taskIds("?workspaceId=filter-ws&status=pending,review")).toEqual(["f-1", "f-3"]);
    expect(await taskIds("?workspaceId=filter-ws&ownerType=agent")).toEqual(["f-3"]);
    expect(await taskIds("?projectId=launch&status=review")).toEqual(["f-3"]);
    expect(await taskIds("?parentId=f-1")).toEqual(["f-2"]);
    expect(await taskIds("?workspaceId=filter-ws&limit=1&offset=1")).toEqual(["f-3"]);
    expect(await taskIds("?workspaceId=filter-ws&status=cancelled")).toEqual([]);
  });

  describe("bad input is refused with a stable code and writes nothing", () => {
    const valid = { ownerType: "user", ownerId: "alice", title: "x" };
    it.each([
      ["an id outside the allowed characters", { ...valid, id: "bad id!" }, 400, "INVALID_REQUEST"],
      ["an over-long id", { ...valid, id: "x".repeat(129) }, 400, "INVALID_REQUEST"],
      ["the id of the event stream", { ...valid, id: "events" }, 400, "INVALID_REQUEST"],
      ["a missing title", { ownerType: "user", ownerId: "alice" }, 400, "INVALID_REQUEST"],
      ["a blank title", { ...valid, title: "   " }, 400, "INVALID_REQUEST"],
      ["an over-long title", { ...valid, title: "x".repeat(501) }, 400, "INVALID_REQUEST"],
      ["a title of the wrong type", { ...valid, title: 42 }, 400, "INVALID_REQUEST"],
      ["a title with a NUL character", { ...valid, title: "a\u0000b" }, 400, "INVALID_STORE_ARGUMENT"],
      ["an unknown owner type", { ...valid, ownerType: "team" }, 400, "INVALID_REQUEST"],
      ["a bad owner id", { ...valid, ownerId: "a/b" }, 400, "INVALID_REQUEST"],
      ["a fractional priority", { ...valid, priority: 1.5 }, 400, "INVALID_REQUEST"],
      ["a priority beyond 32 bits", { ...valid, priority: 2 ** 31 }, 400, "INVALID_REQUEST"],
      ["a due date that is no date-time", { ...valid, dueDate: "tomorrow" }, 400, "INVALID_REQUEST"],
      ["metadata that is no object", { ...valid, metadata: ["a"] }, 400, "INVALID_REQUEST"],
      ["dependencies that are no ids", { ...valid, dependencies: ["ok", "not ok"] }, 400, "INVALID_REQUEST"],
      ["a context (the runtime's to write)", { ...valid, context: { run: { assistantId: "writer", threadId: "t" } } }, 400, "INVALID_REQUEST"],
      ["a status", { ...valid, status: "completed" }, 400, "INVALID_REQUEST"],
      ["a result", { ...valid, result: "done" }, 400, "INVALID_REQUEST"],
      ["an unknown field", { ...valid, assignee: "me" }, 400, "INVALID_REQUEST"],
      ["an unknown project", { ...valid, projectId: "nowhere" }, 404, "NOT_FOUND"],
      ["an agent owner that is no assistant", { ...valid, ownerType: "agent", ownerId: "ghost" }, 404, "NOT_FOUND"],
      ["an agent owner that is no bot of the project", { ...valid, ownerType: "agent", ownerId: "outsider", projectId: "launch" }, 409, "NOT_A_PROJECT_MEMBER"],
      ["an unknown parent", { ...valid, parentId: "no-parent" }, 404, "NOT_FOUND"],
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
        { ownerId: "mallory" },
        { projectId: "launch" },
        { context: { run: {} } },
        { result: 1 },
        { failureReason: "x" },
        { title: "ok", extra: true },
        { dueDate: "soon" },
      ]) {
        const response = await patch("/api/tasks/steady", body);
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json()).toMatchObject({ code: "INVALID_REQUEST" });
      }
      expect((await get("/api/tasks/steady")).json()).toEqual(before);
    });

    it("on query filters and ids in the path", async () => {
      for (const query of ["?status=done", "?status=pending,", "?limit=0", "?limit=501", "?offset=-1", "?ownerType=team", "?sort=title"]) {
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
        expect(heard).toEqual([{ tenantId: "default", taskId: "chores", status, updatedAt: task.updatedAt, ownerId: "alice" }]);
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
      await create({ id: "agent-work", title: "Draft", ownerType: "agent", ownerId: "writer", projectId: "launch" });
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
        ["race-user", { title: "Race", ownerType: "user", ownerId: "alice" }],
        ["race-agent", { title: "Race", ownerType: "agent", ownerId: "writer", projectId: "launch" }],
      ] as const) {
        await create({ id, ...body });
        if (body.ownerType === "agent") await runtimeMoves(id, { status: "review" });
        let answers: Awaited<ReturnType<typeof patch>>[] = [];
        const heard = await eventsDuring(id, async () => {
          answers = await Promise.all(Array.from({ length: RACERS }, () => patch(`/api/tasks/${id}`, { status: "completed" })));
        });
        const statuses = answers.map((answer) => answer.statusCode).sort();
        expect(statuses).toEqual([200, ...Array<number>(RACERS - 1).fill(409)]);
        for (const answer of answers.filter((answer) => answer.statusCode === 409)) expect(answer.json()).toMatchObject({ code: "INVALID_TASK_STATE" });
        expect(heard.map((event) => event.status)).toEqual(["completed"]);
        const winner = answers.find((answer) => answer.statusCode === 200)!.json<TaskBody>();
        expect(heard[0].updatedAt).toBe(winner.updatedAt);
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
    await create({ id: "outcome", title: "Outcome", ownerType: "agent", ownerId: "writer" });
    expect((await get("/api/tasks/outcome/result")).json()).toEqual({ taskId: "outcome", status: "pending" });
    await runtimeMoves("outcome", { status: "completed", result: { summary: "done", pages: 3 } });
    expect((await get("/api/tasks/outcome/result")).json()).toEqual({ taskId: "outcome", status: "completed", result: { summary: "done", pages: 3 } });
    await runtimeMoves("outcome", { status: "failed", failureReason: "orphaned" });
    expect((await get("/api/tasks/outcome/result")).json()).toMatchObject({ status: "failed", failureReason: "orphaned" });
  });

  it("lists the runs of the task's thread as the thread's own route does; none before it started", async () => {
    await create({ id: "with-runs", title: "Runs", ownerType: "agent", ownerId: "writer" });
    expect((await get("/api/tasks/with-runs/runs")).json()).toEqual({ runs: [], next_cursor: null, has_more: false });

    expect((await post("/api/threads", { thread_id: "task-with-runs", assistant_id: "writer" })).statusCode).toBe(201);
    const run = await post("/api/runs", { assistant_id: "writer", thread_id: "task-with-runs", message: "hello", message_id: "task-run-1", mode: "wait" });
    expect(run.statusCode, run.body).toBe(200);
    await runtimeMoves("with-runs", { context: { run: { assistantId: "writer", threadId: "task-with-runs" } } });
    const runs = (await get("/api/tasks/with-runs/runs")).json<{ runs: { message_id: string; status: string }[] }>();
    expect(runs.runs.map(({ message_id, status }) => ({ message_id, status }))).toEqual([{ message_id: "task-run-1", status: "success" }]);
    expect(runs).toEqual((await get("/api/threads/task-with-runs/runs")).json());
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
      { title: "x", ownerType: "user", ownerId: "eve", projectId: "launch" },
      { title: "x", ownerType: "agent", ownerId: "writer" },
      { title: "x", ownerType: "user", ownerId: "eve", parentId: "mine" },
    ]) {
      expect((await post("/api/tasks", body, OTHER_TENANT)).statusCode).toBe(404);
    }
    // The same id is the other tenant's own task.
    expect((await post("/api/tasks", { id: "mine", title: "Theirs", ownerType: "user", ownerId: "eve" }, OTHER_TENANT)).statusCode).toBe(201);
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
        expect((await post("/api/tasks", { id: "their-streamed", title: "Theirs", ownerType: "user", ownerId: "eve" }, OTHER_TENANT)).statusCode).toBe(201);
        const changed = (await patch("/api/tasks/streamed", { status: "completed" })).json<TaskBody>();
        expect((await patch("/api/tasks/their-streamed", { status: "cancelled" }, OTHER_TENANT)).statusCode).toBe(200);
        // A change of the other tenant's task made after ours: once ours has it, our own would have come before.
        await expect.poll(() => theirs.ofType("task_lifecycle").length).toBe(1);
        await expect.poll(() => mine.ofType("task_lifecycle").length).toBe(1);
        expect(mine.ofType("task_lifecycle").map((event) => event.data)).toEqual([
          { tenantId: "default", taskId: "streamed", status: "completed", updatedAt: changed.updatedAt, ownerId: "alice" },
        ]);
        expect(theirs.ofType("task_lifecycle").map((event) => event.data)).toMatchObject([{ tenantId: "tenant-other", taskId: "their-streamed", status: "cancelled" }]);
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
