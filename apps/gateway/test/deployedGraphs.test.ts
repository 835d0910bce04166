import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildTestGateway, useGateway } from "./support";

// An operator's graphs from a langgraph.json, through the LangGraph API of one in-memory gateway:
// each graph has its default assistant, its id names it, and its runs go through the same queue,
// leases and checkpoints as the built-in agent's, with the assistant's and the run's config.
const deployment = join(__dirname, "fixtures/deployment");
const gateway = useGateway(async () => {}, () => ({ AXIOM_LANGGRAPH_CONFIG: join(deployment, "langgraph.json") }));
const tenant = { "x-tenant-id": "deployed" };

const newThread = async () => (await gateway.post("/threads", {}, tenant)).json().thread_id as string;

describe("deployed graphs (langgraph.json)", () => {
  it("answers /ok and /info, naming every graph it serves", async () => {
    expect((await gateway.get("/ok")).json()).toEqual({ ok: true });
    expect((await gateway.get("/info")).json()).toMatchObject({ graphs: ["react", "counter", "made", "annotated"], node_version: "20", flags: { assistants: true } });
  });

  it("gives each graph a default assistant, its config from LANGGRAPH_CONFIG, that its graph id names", async () => {
    const found = (await gateway.post("/assistants/search", { metadata: { created_by: "system" } }, tenant)).json() as Array<Record<string, unknown>>;
    expect(found.map((assistant) => assistant.graph_id).sort()).toEqual(["annotated", "counter", "made", "react"]);
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

  it("refuses to start with an export that is not there, naming the graph and its file", async () => {
    await expect(buildTestGateway({ AXIOM_LANGGRAPH_CONFIG: join(deployment, "broken.json") })).rejects.toThrow(
      /graph "counter" \(.*counter\.mts:nothing\) exports no "nothing" \(it exports graph, makeGraph\)/,
    );
  });
});
