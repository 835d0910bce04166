import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sseEvents } from "./langgraphSse";
import { buildTestGateway, useGateway } from "./support";

// An operator's graphs from a langgraph.json, through the LangGraph API of one in-memory gateway:
// each graph has its default assistant, its id names it, and its runs go through the same queue,
// leases and checkpoints as the built-in agent's, with the assistant's and the run's config.
const deployment = join(__dirname, "fixtures/deployment");
const gateway = useGateway(async () => {}, () => ({ AXIOM_LANGGRAPH_CONFIG: join(deployment, "langgraph.json")}));
const tenant = { "x-tenant-id": "deployed" };

const newThread = async () => (await gateway.post("/threads", {}, tenant)).json().thread_id as string;

describe("deployed graphs (langgraph.json)", () => {
  it("answers /ok and /info, naming every graph it serves", async () => {
    expect((await gateway.get("/ok")).json()).toEqual({ ok: true });
    expect((await gateway.get("/info")).json()).toMatchObject({ graphs: ["react", "counter", "made", "annotated", "nested", "shaped"], node_version: "20", flags: { assistants: true } });
  });

  it("gives each graph a default assistant, its config from LANGGRAPH_CONFIG, that its graph id names", async () => {
    const found = (await gateway.post("/assistants/search", { metadata: { created_by: "system" } }, tenant)).json() as Array<Record<string, unknown>>;
    expect(found.map((assistant) => assistant.graph_id).sort()).toEqual(["annotated", "counter", "made", "nested", "react", "shaped"]);
    expect(found.find((assistant) => assistant.graph_id === "counter")).toMatchObject({ name: "counter", config: { configurable: { who: "the operator" } } });
    const byGraphId = await gateway.get("/assistants/counter", tenant);
    expect(byGraphId.json()).toMatchObject({ graph_id: "counter", assistant_id: found.find((assistant) => assistant.graph_id === "counter")!.assistant_id });
  });

  it("runs a graph with the assistant's and the run's configurable, pauses on its interrupt, and resumes", async () => {
    const thread = await newThread();
    const small = await gateway.post(`/threads/${thread}/runs/wait`, { assistant_id: "counter", input: {}, config: { configurable: { step: 3 } } }, tenant);
    expect(small.json()).toEqual({ count: 3, trail: ["add:the operator", "small"] });

    const big = await gateway.post(`/threads/${thread}/runs/wait`, { assistant_id: "counter", input: {}, config: { configurable: { step: 9, who: "a run" } } }, tenant);
    expect(big.json()).toMatchObject({ count: 12, __interrupt__: [{ value: { question: "approve?", count: 12 } }] });
    expect((await gateway.get(`/threads/${thread}`, tenant)).json()).toMatchObject({ status: "interrupted" });

    const resumed = await gateway.post(`/threads/${thread}/runs/wait`, { assistant_id: "counter", command: { resume: "yes" } }, tenant);
    expect(resumed.json()).toEqual({ count: 12, trail: ["add:the operator", "small", "add:a run", "approved"], approved: "yes" });
    // The state is the graph's own, read with it; every checkpoint of a run names the run.
    const state = (await gateway.get(`/threads/${thread}/state`, tenant)).json();
    expect(state).toMatchObject({ values: { count: 12, approved: "yes" }, next: [] });
    const history = (await gateway.post(`/threads/${thread}/history`, { limit: 100 }, tenant)).json() as Array<{ metadata: Record<string, unknown> }>;
    expect(new Set(history.map((snapshot) => snapshot.metadata.graph_id))).toEqual(new Set(["counter"]));
  });

  it("rolls a thread back to before the runs a rollback run replaced: their checkpoints left on a branch", async () => {
    const thread = await newThread();
    await gateway.post(`/threads/${thread}/runs/wait`, { assistant_id: "counter", input: {}, config: { configurable: { step: 1, who: "kept" } } }, tenant);
    const slow = await gateway.post(`/threads/${thread}/runs`, { assistant_id: "counter", input: {}, config: { configurable: { step: 5, who: "rolled back", sleep_ms: 2000 } } }, tenant);
    expect(slow.statusCode).toBe(200);
    // Once the slow run's first step is checkpointed (count 1 + 5), so there is something to roll back.
    await expect.poll(async () => (await gateway.get(`/threads/${thread}/state`, tenant)).json().values.count, { timeout: 5_000 }).toBe(6);
    const replacing = await gateway.post(
      `/threads/${thread}/runs/wait`,
      { assistant_id: "counter", input: {}, multitask_strategy: "rollback", config: { configurable: { step: 2, who: "replacing" } } },
      tenant,
    );
    expect(replacing.json()).toEqual({ count: 3, trail: ["add:kept", "small", "add:replacing", "small"] });
    expect((await gateway.get(`/threads/${thread}/runs/${slow.json().run_id}`, tenant)).statusCode).toBe(404);
  });

  it("builds a factory's graph per run, from the run's config", async () => {
    const thread = await newThread();
    const answer = await gateway.post(`/threads/${thread}/runs/wait`, { assistant_id: "made", input: {}, config: { configurable: { who: "this run" } } }, tenant);
    expect(answer.json()).toMatchObject({ trail: ["made for this run"] });
  });

  it("streams a graph's updates and names the graph of an unknown assistant as the platform does", async () => {
    const thread = await newThread();
    const streamed = await gateway.post(`/threads/${thread}/runs/stream`, { assistant_id: "counter", input: {}, stream_mode: ["updates"] }, tenant);
    expect(streamed.body).toContain("event: updates");
    expect(streamed.body).toContain('"add"');
    const missing = await gateway.post(`/threads/${thread}/runs/wait`, { assistant_id: "nothing-here", input: {} }, tenant);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().detail).toMatch(/^No assistant found for "nothing-here"/);
  });

  it("puts the operator's Hono app (http.app) in front: its routes, its middleware around the API's", async () => {
    const hello = await gateway.get("/custom/hello", { "x-name": "operator" });
    expect(hello.json()).toEqual({ hello: "operator" });
    expect(hello.headers["x-operator-middleware"]).toBe("seen");
    const echoed = await gateway.post("/custom/echo", { big: "x".repeat(70_000) });
    expect(echoed.json().big).toHaveLength(70_000);
    // The API's routes, wrapped by its middleware; the gateway's own not-found answer for what nobody routes.
    const info = await gateway.get("/info");
    expect(info.json()).toMatchObject({ graphs: expect.arrayContaining(["counter"]) });
    expect(info.headers["x-operator-middleware"]).toBe("seen");
    expect((await gateway.get("/info?intercept")).json()).toEqual({ intercepted: "/info" });
    const missing = await gateway.get("/does/not/exist");
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: "NOT_FOUND" });
    // A run's configurable carries the caller's x- headers, as on the platform (the operator's middleware may set them).
    const thread = await newThread();
    const run = await gateway.app.inject({
      method: "POST",
      url: `/threads/${thread}/runs/wait`,
      headers: { ...tenant, "content-type": "application/json", "x-who": "a header" },
      payload: JSON.stringify({ assistant_id: "made", input: {} }),
    });
    expect(run.json()).toMatchObject({ trail: ["made for a header"] });
    const [shown] = (await gateway.get(`/threads/${thread}/runs`, tenant)).json();
    expect(shown.kwargs.config.configurable).toMatchObject({ "x-who": "a header" });
    expect(shown.kwargs.config.configurable).not.toHaveProperty("x-tenant-id");
    // Refused past the body limit before the operator's app sees it, as the API refuses it.
    const huge = await gateway.post("/custom/echo", { big: "x".repeat(11 * 1024 * 1024) });
    expect(huge.statusCode).toBe(413);
  });

  it("keeps the thread's config as its runs merged it, and makes a factory's graph from it to write the thread's state", async () => {
    const assistant = (await gateway.post("/assistants", { graph_id: "shaped", config: { configurable: { node: "custom" } } }, tenant)).json().assistant_id;
    const thread = await newThread();
    const run = await gateway.post(`/threads/${thread}/runs/wait`, { assistant_id: assistant, input: {}, config: { configurable: { extra: 1 } } }, tenant);
    expect(run.json()).toMatchObject({ trail: ["custom"] });
    expect((await gateway.get(`/threads/${thread}`, tenant)).json().config).toMatchObject({ configurable: { node: "custom", extra: 1 } });
    // The node "custom" exists only in the graph the thread's config makes.
    const written = await gateway.post(`/threads/${thread}/state`, { values: { trail: ["edited"] }, as_node: "custom" }, tenant);
    expect(written.statusCode).toBe(200);
    expect((await gateway.get(`/threads/${thread}/state`, tenant)).json().values.trail).toEqual(["custom", "edited"]);
  });

  it("reads and updates a paused subgraph's state by its namespace, and streams its events when asked", async () => {
    const thread = await newThread();
    await gateway.post(`/threads/${thread}/runs/wait`, { assistant_id: "nested", input: {} }, tenant);
    const state = (await gateway.get(`/threads/${thread}/state`, tenant)).json();
    expect(state.next).toEqual(["weather"]);
    const [task] = state.tasks;
    expect(task).toMatchObject({ name: "weather", checkpoint: { thread_id: thread, checkpoint_ns: expect.stringMatching(/^weather:/) }, state: null });
    // With subgraphs, the subgraph's state in its task.
    const deep = (await gateway.get(`/threads/${thread}/state?subgraphs=true`, tenant)).json();
    expect(deep.tasks[0]).toMatchObject({ checkpoint: null, state: { values: { city: "Paris" }, next: ["forecast"] } });

    const written = await gateway.post(`/threads/${thread}/state`, { values: { city: "Oslo" }, checkpoint: task.checkpoint }, tenant);
    expect(written.json().checkpoint).toMatchObject({ thread_id: thread, checkpoint_ns: task.checkpoint.checkpoint_ns });
    const inner = (await gateway.post(`/threads/${thread}/state/checkpoint`, { checkpoint: task.checkpoint }, tenant)).json();
    expect(inner).toMatchObject({ values: { city: "Oslo" }, next: ["forecast"] });
    const innerHistory = (await gateway.post(`/threads/${thread}/history`, { checkpoint: task.checkpoint }, tenant)).json() as Array<{ values: { city?: string } }>;
    expect(innerHistory[0].values.city).toBe("Oslo");
    expect(innerHistory.length).toBeGreaterThan((await gateway.post(`/threads/${thread}/history`, {}, tenant)).json().length);

    // Going on streams the subgraph's events, named by its namespace; ids count from the metadata's 0.
    const streamed = sseEvents(await gateway.post(`/threads/${thread}/runs/stream`, { assistant_id: "nested", input: null, stream_mode: ["values", "updates"], stream_subgraphs: true }, tenant));
    expect(streamed[0]).toMatchObject({ event: "metadata", id: "0", data: { attempt: 1 } });
    expect(streamed.some(({ event }) => /^updates\|weather:/.test(event))).toBe(true);
    expect(streamed.at(-1)).toMatchObject({ event: "values", data: { city: "Oslo", report: "sunny in Oslo" } });

    // A namespace that names no subgraph is a 404; a node the graph lacks a 4xx; neither writes anything.
    const before = (await gateway.post(`/threads/${thread}/history`, { limit: 100 }, tenant)).json().length;
    const nowhere = await gateway.post(`/threads/${thread}/state/checkpoint`, { checkpoint: { checkpoint_ns: "nowhere:1" } }, tenant);
    expect(nowhere.statusCode).toBe(404);
    const badNode = await gateway.post(`/threads/${thread}/state`, { values: { city: "Rome" }, as_node: "no_such_node" }, tenant);
    expect(badNode.json().code).toBe("INVALID_REQUEST");
    expect((await gateway.post(`/threads/${thread}/history`, { limit: 100 }, tenant)).json().length).toBe(before);
  });

  it("bundles the deployment's generative UI when it starts and serves it as the platform does", async () => {
    const html = await gateway.post("/ui/cards", { name: "weather-card" }, { host: "localhost:2024" });
    expect(html.headers["content-type"]).toMatch(/^text\/html/);
    expect(html.body).toBe(`<script src="http://localhost:2024/ui/cards/entrypoint.js" onload='__LGUI_cards.render("weather-card", "{{shadowRootId}}")'></script>`);
    const script = await gateway.get("/ui/cards/entrypoint.js");
    expect(script.headers["content-type"]).toMatch(/^text\/javascript/);
    expect(script.headers["cross-origin-resource-policy"]).toBe("cross-origin");
    expect(script.body).toContain('globalThis[Symbol.for("LGUI_REQUIRE")]');
    expect(script.body).toContain("Weather for");
    expect((await gateway.post("/ui/nothing", { name: "x" })).statusCode).toBe(404);
    expect((await gateway.get("/ui/cards/missing.js")).statusCode).toBe(404);
  });

  it("refuses to start with an export that is not there, naming the graph and its file", async () => {
    await expect(buildTestGateway({ AXIOM_LANGGRAPH_CONFIG: join(deployment, "broken.json") })).rejects.toThrow(
      /graph "counter" \(.*counter\.mts:nothing\) exports no "nothing" \(it exports graph, makeGraph, shapedBy\)/,
    );
  });
});

describe("the ReAct graph's settings in an assistant's config.configurable", () => {
  it("are read as the assistant's own, as older clients give them: a model named there is the one that runs", async () => {
    const created = await gateway.post(
      "/assistants",
      { graph_id: "react", config: { configurable: { model: { provider: "missing-provider" } } } },
      { "x-tenant-id": "configurable" },
    );
    // Checked as an assistant's settings are: a provider nobody registered is refused, not run as the echo model.
    expect(created.statusCode).toBe(400);
    expect(created.json().code).toBe("UNKNOWN_MODEL_PROVIDER");
  });
});

describe("POST /internal/truncate (a development gateway: in memory, authentication off)", () => {
  it("empties the tenant's threads, assistants and store, as langgraph dev does for test suites; default assistants come back", async () => {
    const headers = { "x-tenant-id": "truncated" };
    const thread = (await gateway.post("/threads", {}, headers)).json().thread_id as string;
    await gateway.post("/assistants", { graph_id: "counter", name: "mine" }, headers);
    await gateway.app.inject({ method: "PUT", url: "/store/items", headers: { ...headers, "content-type": "application/json" }, payload: JSON.stringify({ namespace: ["a"], key: "k", value: { v: 1 } }) });
    // As the LangGraph server's test utilities send it ("checkpoint", besides the documented "checkpointer").
    expect((await gateway.post("/internal/truncate", { runs: true, threads: true, assistants: true, store: true, checkpoint: true }, headers)).json()).toEqual({ ok: true });
    expect((await gateway.get(`/threads/${thread}`, headers)).statusCode).toBe(404);
    expect((await gateway.post("/store/namespaces", {}, headers)).json()).toEqual({ namespaces: [] });
    const left = (await gateway.post("/assistants/search", {}, headers)).json() as Array<{ metadata: Record<string, unknown> }>;
    const graphs = (await gateway.get("/info")).json().graphs as string[];
    expect(left.map((assistant) => assistant.metadata.created_by)).toEqual(graphs.map(() => "system"));
  });
});
