import { ANY_ASSISTANT } from "@axiom-lattice/protocols";
import type { LeaderTenure } from "@axiom-lattice/core";
import { type TestDatabase } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { threadScope } from "../src/shared/lookups";
import { buildTestGateway, createMigratedTestDatabase, type TestGateway, useGateway, useStoreEnv } from "./support";

// A thread's lifecycle through the LangGraph API: its TTL (deleted by the maintenance leader's sweep
// once it ran out), its creation with prior state (`supersteps`), and its deletion with its assistant
// (`delete_threads=true`).

const tenure: LeaderTenure = { signal: new AbortController().signal, token: "test" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sleepUntil = (time: number) => sleep(Math.max(0, time - Date.now()));
const say = (text: string) => ({ messages: [{ role: "user", content: text }] });
/** The sweep's period here: also how long a thread found in use stays claimed. */
const SWEEP_ENV = { AXIOM_THREAD_TTL_SWEEP_MS: "200" };

/** What the gateway keeps of a thread: its record, runs and checkpoints. */
async function remains(gateway: Pick<TestGateway, "context">, tenantId: string, id: string) {
  const { stores, agents } = gateway.context;
  const scope = threadScope({ id, tenantId, assistantId: ANY_ASSISTANT, metadata: {}, createdAt: new Date(), updatedAt: new Date() });
  const [thread, runs, snapshot] = await Promise.all([
    stores.threads.getThread(tenantId, id),
    stores.langGraph.latestRuns({ tenantId, assistantId: ANY_ASSISTANT, threadId: id }),
    agents.getAgent(scope).stateSnapshot(),
  ]);
  return { thread: thread !== null, runs: runs.length, checkpointed: snapshot.createdAt !== undefined };
}

describe.each(["memory", "postgresql"])("LangGraph API: thread lifecycle on %s stores", (stores) => {
  const tenant = `lg-life-${stores}`;
  const headers = { "x-tenant-id": tenant };
  const storeEnv = useStoreEnv(stores);
  const gateway = useGateway(
    async ({ post }) => {
      expect((await post("/assistants", { assistant_id: "lifer", graph_id: "react" }, headers)).statusCode).toBe(200);
    },
    () => ({ ...storeEnv(), ...SWEEP_ENV }),
  );
  const post = (url: string, body: unknown, as = headers) => gateway.post(url, body, as);
  const patch = (url: string, body: unknown) => gateway.app.inject({ method: "PATCH", url, headers: { ...headers, "content-type": "application/json" }, payload: JSON.stringify(body) });
  const status = async (thread: string) => (await gateway.get(`/threads/${thread}`, headers)).statusCode;
  const sweep = () => gateway.context.threadExpiry.run(tenure);
  const contents = async (thread: string) =>
    ((await gateway.get(`/threads/${thread}/state`, headers)).json().values.messages ?? []).map((message: { type: string; content: string }) => `${message.type}:${message.content}`);

  describe("ttl", () => {
    it("deletes a thread whose TTL ran out, with its runs and checkpoints; keeps one without, or with time left", async () => {
      const expiring = (await post("/threads", { ttl: { ttl: 0.005, strategy: "delete" } })).json().thread_id;
      expect((await post(`/threads/${expiring}/runs/wait`, { assistant_id: "lifer", input: say("soon gone") })).statusCode).toBe(200);
      expect(await remains(gateway, tenant, expiring)).toEqual({ thread: true, runs: 1, checkpointed: true });
      const forever = (await post("/threads", {})).json().thread_id;
      const lasting = (await post("/threads", { ttl: { ttl: 10 } })).json().thread_id;
      await sleep(600);
      expect(await sweep()).toBeGreaterThanOrEqual(1);
      expect(await remains(gateway, tenant, expiring)).toEqual({ thread: false, runs: 0, checkpointed: false });
      expect(await status(expiring)).toBe(404);
      expect([await status(forever), await status(lasting)]).toEqual([200, 200]);

      // A PATCH sets a TTL counted from now.
      expect((await patch(`/threads/${forever}`, { ttl: { ttl: 0.005 } })).statusCode).toBe(200);
      await sleep(600);
      await sweep();
      expect([await status(forever), await status(lasting)]).toEqual([404, 200]);
    });

    it("restarts a thread's TTL when it is used: a state write, a run, a PATCH", async () => {
      const start = Date.now();
      const used = await Promise.all(["state", "run", "patch", "idle"].map(async (use) => [use, (await post("/threads", { ttl: { ttl: 0.03 } })).json().thread_id] as const));
      await sleepUntil(start + 1_000);
      await Promise.all(
        used.map(async ([use, thread]) => {
          if (use === "state") expect((await post(`/threads/${thread}/state`, { values: say("still here"), as_node: "agent" })).statusCode).toBe(200);
          if (use === "run") expect((await post(`/threads/${thread}/runs/wait`, { assistant_id: "lifer", input: say("still here") })).statusCode).toBe(200);
          if (use === "patch") expect((await patch(`/threads/${thread}`, { metadata: { seen: true } })).statusCode).toBe(200);
        }),
      );
      // Past the first expiry (1.8 s after creation), before the restarted ones (1.8 s after their use, a second in).
      await sleepUntil(start + 2_200);
      await sweep();
      expect(await Promise.all(used.map(async ([use, thread]) => [use, await status(thread)]))).toEqual([
        ["state", 200],
        ["run", 200],
        ["patch", 200],
        ["idle", 404],
      ]);
      await sleep(2_000);
      await sweep();
      expect(await Promise.all(used.map(([, thread]) => status(thread)))).toEqual([404, 404, 404, 404]);
    });

    it("keeps a thread in use past its TTL: one with a run in progress is deleted once its run ended", async () => {
      const thread = (await post("/threads", { ttl: { ttl: 0.005 } })).json().thread_id;
      const run = (await post(`/threads/${thread}/runs`, { assistant_id: "lifer", input: say("/sleep 1500") })).json();
      await sleep(600);
      await sweep();
      expect(await status(thread)).toBe(200);
      expect((await gateway.get(`/threads/${thread}/runs/${run.run_id}/join`, headers)).json().messages.at(-1)).toMatchObject({ content: "echo: /sleep 1500" });
      // The claim of the pass that found it in use lapses after one sweep period.
      await sleep(300);
      expect(await sweep()).toBeGreaterThanOrEqual(1);
      expect(await status(thread)).toBe(404);
    });

    it("refuses a TTL it cannot keep with 422, and writes nothing", async () => {
      for (const [body, code] of [
        [{ thread_id: "ttl-kept", ttl: { ttl: 5, strategy: "keep_latest" } }, "NOT_SUPPORTED"],
        [{ thread_id: "ttl-zero", ttl: { ttl: 0 } }, "INVALID_REQUEST"],
        [{ thread_id: "ttl-bare", ttl: 5 }, "INVALID_REQUEST"],
        [{ thread_id: "ttl-odd", ttl: { ttl: 5, strategy: "archive" } }, "INVALID_REQUEST"],
      ] as const) {
        const answer = await post("/threads", body);
        expect([answer.statusCode, answer.json().code], JSON.stringify(body)).toEqual([422, code]);
        expect(await status(body.thread_id)).toBe(404);
      }
      const thread = (await post("/threads", { metadata: { kept: true } })).json().thread_id;
      const refused = await patch(`/threads/${thread}`, { metadata: { changed: true }, ttl: { ttl: 1, strategy: "keep_latest" } });
      expect([refused.statusCode, refused.json().code]).toEqual([422, "NOT_SUPPORTED"]);
      expect((await gateway.get(`/threads/${thread}`, headers)).json().metadata).toEqual({ kept: true });
    });
  });

  describe("supersteps", () => {
    it("creates a thread with prior state, one checkpoint per update, that a run goes on from", async () => {
      const created = await post("/threads", {
        metadata: { imported: true },
        supersteps: [
          { updates: [{ values: say("hello"), as_node: "agent" }] },
          { updates: [{ values: { messages: [{ role: "assistant", content: "hi, how can I help?" }] }, as_node: "agent" }, { values: say("tell me more"), as_node: "agent" }] },
        ],
      });
      expect(created.statusCode).toBe(200);
      const thread = created.json();
      expect(thread).toMatchObject({ metadata: { imported: true }, status: "idle" });
      expect(thread.values.messages.map((message: { content: string }) => message.content)).toEqual(["hello", "hi, how can I help?", "tell me more"]);
      expect((await post(`/threads/${thread.thread_id}/history`, { limit: 10 })).json()).toHaveLength(3);
      await post(`/threads/${thread.thread_id}/runs/wait`, { assistant_id: "lifer", input: say("go on") });
      expect(await contents(thread.thread_id)).toEqual(["human:hello", "ai:hi, how can I help?", "human:tell me more", "human:go on", "ai:echo: go on"]);
    });

    it("writes nothing for a bad superstep: 422 and no thread", async () => {
      const good = { values: say("fine"), as_node: "agent" };
      for (const [supersteps, code] of [
        [[{ updates: [good] }, { updates: [good, { values: { messages: [{ role: "nobody", content: "x" }] }, as_node: "agent" }] }], "INVALID_REQUEST"],
        [[{ updates: [good] }, { updates: [{ values: say("x"), as_node: "__input__" }] }], "INVALID_REQUEST"],
        [[{ updates: [good] }, { updates: [] }], "INVALID_REQUEST"],
        [[{ updates: [{ values: say("x") }] }], "INVALID_REQUEST"],
        [[{ updates: [good, { ...good, command: { resume: "yes" } }] }], "NOT_SUPPORTED"],
      ] as const) {
        const answer = await post("/threads", { thread_id: "steps-refused", supersteps });
        expect([answer.statusCode, answer.json().code], JSON.stringify(supersteps)).toEqual([422, code]);
        expect(await remains(gateway, tenant, "steps-refused")).toEqual({ thread: false, runs: 0, checkpointed: false });
      }
    });

    it("leaves an existing thread as it is under if_exists do_nothing", async () => {
      const thread = (await post("/threads", { supersteps: [{ updates: [{ values: say("first"), as_node: "agent" }] }] })).json().thread_id;
      const again = await post("/threads", { thread_id: thread, if_exists: "do_nothing", supersteps: [{ updates: [{ values: say("second"), as_node: "agent" }] }] });
      expect(again.statusCode).toBe(200);
      expect(await contents(thread)).toEqual(["human:first"]);
      expect((await post("/threads", { thread_id: thread, supersteps: [{ updates: [{ values: say("third"), as_node: "agent" }] }] })).json().code).toBe("ALREADY_EXISTS");
      expect(await contents(thread)).toEqual(["human:first"]);
    });
  });

  describe("delete_threads", () => {
    const runOn = async (assistant: string, as = headers) => {
      const thread = (await post("/threads", {}, as)).json().thread_id;
      expect((await post(`/threads/${thread}/runs/wait`, { assistant_id: assistant, input: say("hi") }, as)).statusCode).toBe(200);
      return thread as string;
    };
    const deleteAssistant = (id: string, query: string, as = headers) => gateway.app.inject({ method: "DELETE", url: `/assistants/${id}${query}`, headers: as });

    it("deletes the threads the assistant's runs used, in the caller's tenant only; other threads stay", async () => {
      const other = { "x-tenant-id": `${tenant}-other` };
      for (const [id, as] of [["doomed", headers], ["spared", headers], ["doomed", other]] as const) {
        expect((await post("/assistants", { assistant_id: id, graph_id: "react" }, as)).statusCode).toBe(200);
      }
      const [doomed1, doomed2, spared, idle, othersDoomed] = [await runOn("doomed"), await runOn("doomed"), await runOn("spared"), (await post("/threads", {})).json().thread_id, await runOn("doomed", other)];

      expect((await deleteAssistant("doomed", "?delete_threads=true")).statusCode).toBe(204);
      expect(await remains(gateway, tenant, doomed1)).toEqual({ thread: false, runs: 0, checkpointed: false });
      expect(await Promise.all([doomed2, spared, idle].map(status))).toEqual([404, 200, 200]);
      expect((await gateway.get("/assistants/doomed", headers)).statusCode).toBe(404);
      expect((await gateway.get(`/threads/${othersDoomed}`, other)).statusCode).toBe(200);

      // Without it, the threads stay.
      expect((await deleteAssistant("spared", "?delete_threads=false")).statusCode).toBe(204);
      expect(await status(spared)).toBe(200);
      expect((await deleteAssistant("doomed", "?delete_threads=true")).statusCode).toBe(404);
    });

    it("deletes nothing while one of the threads has a run in progress: 409 THREAD_BUSY", async () => {
      expect((await post("/assistants", { assistant_id: "busy", graph_id: "react" })).statusCode).toBe(200);
      const done = await runOn("busy");
      const running = (await post("/threads", {})).json().thread_id;
      const run = (await post(`/threads/${running}/runs`, { assistant_id: "busy", input: say("/sleep 1500") })).json();
      await expect.poll(async () => (await gateway.get(`/threads/${running}/runs/${run.run_id}`, headers)).json().status).toBe("running");

      const refused = await deleteAssistant("busy", "?delete_threads=true");
      expect([refused.statusCode, refused.json().code]).toEqual([409, "THREAD_BUSY"]);
      expect(await Promise.all([done, running].map(status))).toEqual([200, 200]);
      expect((await gateway.get("/assistants/busy", headers)).statusCode).toBe(200);

      await gateway.get(`/threads/${running}/runs/${run.run_id}/join`, headers);
      expect((await deleteAssistant("busy", "?delete_threads=true")).statusCode).toBe(204);
      expect(await Promise.all([done, running].map(status))).toEqual([404, 404]);
    });
  });
});

describe("LangGraph API: thread TTL on two gateways sharing PostgreSQL", () => {
  const tenant = "lg-life-replicas";
  const headers = { "x-tenant-id": tenant, "content-type": "application/json" };
  let database: TestDatabase;
  let replicas: Awaited<ReturnType<typeof buildTestGateway>>[] = [];
  beforeAll(async () => {
    database = await createMigratedTestDatabase();
    const env = { DATABASE_URL: database.url, ...SWEEP_ENV };
    replicas = [await buildTestGateway({ ...env, AXIOM_REPLICA_ID: "ttl-a" }), await buildTestGateway({ ...env, AXIOM_REPLICA_ID: "ttl-b" })];
  });
  afterAll(async () => {
    for (const { app, context } of replicas) {
      await app.close();
      await context.close();
    }
    await database?.drop();
  });
  const post = (replica: number, url: string, body: unknown) => replicas[replica]!.app.inject({ method: "POST", url, headers, payload: JSON.stringify(body) });

  it("deletes each expired thread once, whichever replica sweeps, while a thread in use stays", async () => {
    expect((await post(0, "/assistants", { assistant_id: "shared", graph_id: "react" })).statusCode).toBe(200);
    const expiring = 20;
    const threads = await Promise.all(Array.from({ length: expiring }, async (_, n) => (await post(n % 2, "/threads", { ttl: { ttl: 0.005 } })).json().thread_id as string));
    const inUse = (await post(1, "/threads", { ttl: { ttl: 0.005 } })).json().thread_id;
    const run = (await post(1, `/threads/${inUse}/runs`, { assistant_id: "shared", input: say("/sleep 2000") })).json();
    await sleep(600);

    // Both replicas sweep at once (as during a leadership handover): every expired thread is deleted, by one of them.
    const deleted = await Promise.all(replicas.map(({ context }) => context.threadExpiry.run(tenure)));
    expect((deleted as number[]).reduce((sum, count) => sum + count, 0)).toBe(expiring);
    for (const thread of threads) expect(await remains(replicas[0]!, tenant, thread)).toEqual({ thread: false, runs: 0, checkpointed: false });

    expect((await replicas[0]!.app.inject({ method: "GET", url: `/threads/${inUse}`, headers })).statusCode).toBe(200);
    const joined = await replicas[0]!.app.inject({ method: "GET", url: `/threads/${inUse}/runs/${run.run_id}/join`, headers });
    expect(joined.json().messages.at(-1)).toMatchObject({ content: "echo: /sleep 2000" });
  });
});
