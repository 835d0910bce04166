import type { Page, PageRequest } from "@axiom-lattice/protocols";
import { eventually, parseSse, walkPages } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { useGateway, useStoreEnv } from "./support";

const ASSISTANT = "wire";
const run = (threadId: string, fields: Record<string, unknown>) => ({ assistant_id: ASSISTANT, thread_id: threadId, ...fields });

/** Values clients give or graphs make, passed through as they are: their keys are not the API's. */
const FREE_FORM = new Set(["metadata", "args", "content", "value", "resume"]);

/** Every key the API itself chose in `value`, with where it is, except those inside free-form values. */
function apiKeys(value: unknown, at = "$"): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => apiKeys(item, `${at}[${i}]`));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, item]) => [`${at}.${key}`, ...(FREE_FORM.has(key) ? [] : apiKeys(item, `${at}.${key}`))]);
}

/** The keys of `value` that are not snake_case: none, on every answer of these routes. */
const notSnakeCase = (value: unknown) => apiKeys(value).filter((path) => !/^[a-z0-9_]+$/.test(path.slice(path.lastIndexOf(".") + 1)));

describe.each(["memory", "postgresql"])("threads and runs on the wire, on %s stores", (stores) => {
  const env = useStoreEnv(stores);
  const { post, get } = useGateway(async ({ post }) => {
    expect((await post("/api/assistants", { id: ASSISTANT, name: "Wire", tools: ["echo"] })).statusCode).toBe(201);
    expect((await post("/api/assistants", { id: "other", name: "Other" })).statusCode).toBe(201);
  }, env);

  /** A page of a list over HTTP, as a store's page: for walking it with `walkPages`. */
  const pageOver =
    <T>(url: string, name: string) =>
    async ({ limit, cursor }: PageRequest): Promise<Page<T> & { hasMore: boolean }> => {
      const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
      const response = await get(`${url}${url.includes("?") ? "&" : "?"}${query}`);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json<Record<string, unknown> & { next_cursor: string | null; has_more: boolean }>();
      expect(Object.keys(body)).toEqual([name, "next_cursor", "has_more"]);
      expect(body.has_more).toBe(body.next_cursor !== null);
      return { items: body[name] as T[], nextCursor: body.next_cursor, hasMore: body.has_more };
    };

  it("answers every thread and run route in snake_case, numbers as numbers, free-form values as given", async () => {
    const created = await post("/api/threads", { thread_id: "cased", assistant_id: ASSISTANT, metadata: { camelKey: { innerKey: 1 } } });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      id: "cased",
      tenant_id: "default",
      assistant_id: ASSISTANT,
      metadata: { camelKey: { innerKey: 1 } },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    const streamed = await post("/api/runs", run("cased", { message: '/tool echo {"someText":"hi"}', message_id: "cased-1" }));
    const events = parseSse(streamed.body);
    expect(events.find((event) => event.type === "tool_call")?.data).toMatchObject({ name: "echo", args: { someText: "hi" } });
    expect(events.find((event) => event.type === "tool_result")?.data).toMatchObject({ tool_call_id: expect.any(String), name: "echo" });
    const waited = await post("/api/runs", run("cased", { message: "/interrupt Name?", message_id: "cased-2", mode: "wait" }));
    expect(waited.json()).toMatchObject({ message_id: "cased-2", status: "interrupted", interrupts: [{ value: "Name?" }] });
    const resumed = await post("/api/runs", run("cased", { command: { resume: { fullName: "Ada" } }, mode: "wait" }));
    expect(resumed.json()).toMatchObject({ status: "success", messages: [{ type: "tool", tool_call_id: expect.any(String) }, { type: "ai" }] });

    // Two slow messages: one runs, one waits, so the queue shows both kinds.
    for (const n of [3, 4]) {
      const queued = await post("/api/runs", run("cased", { message: "/sleep 400", message_id: `cased-${n}`, mode: "queue" }));
      expect(queued.json()).toEqual({ message_id: `cased-${n}`, queued: true });
    }
    let queue = { processing: [] as unknown[], pending: [] as unknown[] };
    await eventually("one run and one waiting", async () => {
      queue = (await get("/api/threads/cased/queue")).json<typeof queue>();
      return queue.processing.length === 1 && queue.pending.length === 1;
    });
    expect(queue.pending[0]).toMatchObject({
      id: "cased-4",
      thread_id: "cased",
      tenant_id: "default",
      assistant_id: ASSISTANT,
      sequence: expect.any(Number),
      run_status: "pending",
      created_at: expect.any(String),
    });
    const resumeStream = await post("/api/runs/resume_stream", run("cased", { message_id: "cased-1" }));
    const aborted = await post("/api/runs/abort", run("cased", { message_id: "cased-4" }));
    expect(aborted.json()).toEqual({ success: true, aborted: true, message_id: "cased-4", status: "aborted" });

    const answers = {
      created: created.json(),
      read: (await get("/api/threads/cased")).json(),
      listed: (await get("/api/threads")).json(),
      events: events.map(({ type, data }) => ({ type, data })),
      replayed: parseSse(resumeStream.body).map(({ type, data }) => ({ type, data })),
      waited: waited.json(),
      resumed: resumed.json(),
      queue,
      aborted: aborted.json(),
      state: (await get("/api/threads/cased/state")).json(),
      runs: (await get("/api/threads/cased/runs")).json(),
      recovered: (await post("/api/runs/recover", run("cased", {}))).json(),
    };
    expect(apiKeys(answers.state)).toContain("$.messages[1].tool_calls");
    expect(apiKeys(answers.runs)).toContain("$.runs[0].message_id");
    expect(notSnakeCase(answers)).toEqual([]);
  });

  it("walks the tenant's threads page by page, newest first, each once, of one assistant or all", async () => {
    const ids = Array.from({ length: 7 }, (_, n) => `paged-${n}`);
    for (const [n, id] of ids.entries()) {
      expect((await post("/api/threads", { thread_id: id, assistant_id: n % 2 ? ASSISTANT : "other" })).statusCode).toBe(201);
    }
    const ofBoth = await walkPages(pageOver<{ id: string }>("/api/threads", "threads"), 3);
    expect(ofBoth.items.map((thread) => thread.id).filter((id) => id.startsWith("paged-"))).toEqual([...ids].reverse());
    const ofOther = await walkPages(pageOver<{ id: string }>("/api/threads?assistant_id=other", "threads"), 2);
    expect(ofOther.items.map((thread) => thread.id)).toEqual(["paged-6", "paged-4", "paged-2", "paged-0"]);
    expect(ofOther.pages).toBe(2);
    const last = await pageOver("/api/threads?assistant_id=other", "threads")({ limit: 4 });
    expect(last).toMatchObject({ nextCursor: null, hasMore: false });
  });

  it("walks a thread's runs page by page, oldest first, each once; the last page ends with the run in progress", async () => {
    expect((await post("/api/threads", { thread_id: "many-runs", assistant_id: ASSISTANT })).statusCode).toBe(201);
    const ids = Array.from({ length: 7 }, (_, n) => `many-runs-${n}`);
    for (const id of ids) expect((await post("/api/runs", run("many-runs", { message: "hello", message_id: id, mode: "queue" }))).statusCode).toBe(202);
    const runsPage = pageOver<{ message_id: string; status: string }>("/api/threads/many-runs/runs", "runs");
    // One page of all while runs are in progress: the page that ends the list also holds the one running, beyond `limit`.
    const listed = async () => (await runsPage({ limit: 1_000 })).items;
    await eventually("every run to finish", async () => (await listed()).filter((run) => run.status === "success").length === ids.length);
    const walked = await walkPages(runsPage, 3);
    expect(walked.items.map((listed) => listed.message_id)).toEqual(ids);
    expect(walked.pages).toBe(3);

    expect((await post("/api/runs", run("many-runs", { message: "/sleep 60000", message_id: "many-runs-long", mode: "queue" }))).statusCode).toBe(202);
    await eventually("the long run to start", async () => (await listed()).some((run) => run.status === "running"));
    const first = await runsPage({ limit: 4 });
    expect(first.items.map((listed) => listed.message_id)).toEqual(ids.slice(0, 4));
    // The finished runs left fill this page exactly: the run in progress comes on top of them.
    const rest = await runsPage({ limit: 3, cursor: first.nextCursor });
    expect(rest.items.map((listed) => [listed.message_id, listed.status])).toEqual([...ids.slice(4).map((id) => [id, "success"]), ["many-runs-long", "running"]]);
    expect(rest).toMatchObject({ nextCursor: null, hasMore: false });
    expect((await post("/api/runs/abort", run("many-runs", {}))).json()).toMatchObject({ aborted: true });
  });

  it.each([
    ["/api/threads?cursor=garbage", "INVALID_CURSOR"],
    ["/api/threads/many-runs/runs?cursor=garbage", "INVALID_CURSOR"],
    ["/api/threads?limit=0", "INVALID_REQUEST"],
    ["/api/threads/many-runs/runs?limit=0", "INVALID_REQUEST"],
    ["/api/threads?limit=1001", "INVALID_REQUEST"],
    ["/api/threads?offset=10", "INVALID_REQUEST"],
    ["/api/threads/many-runs/runs?after=1", "INVALID_REQUEST"],
  ])("answers GET %s with 400 %s", async (url, code) => {
    const response = await get(url);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, code, error: expect.any(String) });
  });

  // Told apart by their keys' shapes, which differ on PostgreSQL (the in-memory keys are numbers alike).
  it.runIf(stores === "postgresql")("refuses a cursor of the thread list on the run list, and the other way round", async () => {
    const threadsCursor = (await pageOver("/api/threads", "threads")({ limit: 1 })).nextCursor!;
    const runsCursor = (await pageOver("/api/threads/many-runs/runs", "runs")({ limit: 1 })).nextCursor!;
    expect((await get(`/api/threads/many-runs/runs?cursor=${threadsCursor}`)).json()).toMatchObject({ code: "INVALID_CURSOR" });
    expect((await get(`/api/threads?cursor=${runsCursor}`)).json()).toMatchObject({ code: "INVALID_CURSOR" });
  });
});
