import { FakeOpenAi, closedPortBaseUrl } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useGateway } from "./support";

const api = new FakeOpenAi();
let apiUrl: string;
beforeAll(async () => {
  apiUrl = await api.start();
});
afterAll(() => api.stop());

const patch = (gateway: ReturnType<typeof useGateway>, url: string, payload: unknown) =>
  gateway.app.inject({ method: "PATCH", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });

describe("assistant references checked when written", () => {
  const gateway = useGateway(async (gw) => {
    expect((await gw.post("/api/assistants", { id: "kept", name: "Kept", tools: ["echo"] })).statusCode).toBe(201);
  });

  const refused: Array<[string, object, string]> = [
    ["an unknown tool", { tools: ["echo", "no-such-tool"] }, "UNKNOWN_TOOL"],
    ["an unknown model provider", { model: { provider: "no-such-provider" } }, "UNKNOWN_MODEL_PROVIDER"],
    ["a javascript: base URL", { model: { provider: "openai", base_url: "javascript:alert(1)" } }, "INVALID_BASE_URL"],
    ["a file: base URL", { model: { provider: "openai", base_url: "file:///etc/passwd" } }, "INVALID_BASE_URL"],
    // What a read answers instead of the key: sent back (read, change, write), it would replace the key.
    ["the masked API key", { model: { provider: "openai", api_key: "***" } }, "INVALID_REQUEST"],
  ];

  it.each(refused)("refuses %s at create and at update, writing nothing", async (_, change, code) => {
    const created = await gateway.post("/api/assistants", { id: "refused", name: "Refused", ...change });
    expect(created.statusCode).toBe(400);
    expect(created.json()).toMatchObject({ code, error: expect.any(String) });
    expect((await gateway.get("/api/assistants/refused")).statusCode).toBe(404);

    const updated = await patch(gateway, "/api/assistants/kept", { name: "Changed", ...change });
    expect(updated.statusCode).toBe(400);
    expect(updated.json()).toMatchObject({ code });
    expect((await gateway.get("/api/assistants/kept")).json()).toMatchObject({ name: "Kept", tools: ["echo"], model: { provider: "scripted" } });
  });

  it("accepts registered tools, the runtime's own, and an http base URL", async () => {
    const created = await gateway.post("/api/assistants", {
      id: "good",
      name: "Good",
      tools: ["clock", "echo", "task", "ask_human"],
      model: { provider: "openai", base_url: apiUrl, model: "fake-model" },
    });
    expect(created.statusCode).toBe(201);
    expect((await patch(gateway, "/api/assistants/good", { tools: ["clock"] })).statusCode).toBe(200);
  });

  it("runs an assistant stored before the check to a failed run with the reference's code, keeping the user's message in the thread", async () => {
    // Written behind the API, as a record from before this check would be (or one whose MCP server has since gone).
    await gateway.context.stores.assistants.createAssistant("default", { id: "stale", name: "Stale", model: { provider: "scripted" }, tools: ["gone-tool"] });
    expect((await gateway.post("/api/threads", { thread_id: "stale-thread", assistant_id: "stale" })).statusCode).toBe(201);
    const run = await gateway.post("/api/runs", { assistant_id: "stale", thread_id: "stale-thread", message: "hi", mode: "wait" });
    expect(run.statusCode).toBe(200);
    const human = { type: "human", content: "hi" };
    expect(run.json()).toMatchObject({ status: "error", error: expect.stringMatching(/^UNKNOWN_TOOL: Unknown tool "gone-tool"/), messages: [human] });
    const state = await gateway.get("/api/threads/stale-thread/state");
    expect(state.statusCode).toBe(200);
    expect(state.json()).toMatchObject({ messages: [human] });
    // Once the tool is back (here: the assistant no longer names it), the thread goes on from there, the message not repeated.
    await gateway.context.stores.assistants.updateAssistant("default", "stale", { tools: [] });
    const again = await gateway.post("/api/runs", { assistant_id: "stale", thread_id: "stale-thread", message: "again", mode: "wait" });
    expect(again.json()).toMatchObject({ status: "success" });
    const thread = (await gateway.get("/api/threads/stale-thread/state")).json<{ messages: Array<{ type: string; content: string }> }>();
    expect(thread.messages.map((message) => `${message.type}: ${message.content}`)).toEqual(["human: hi", "human: again", "ai: echo: again"]);
  });
});

describe("base URLs under AXIOM_UPSTREAM_ALLOW", () => {
  const gateway = useGateway(
    async () => {},
    () => ({ AXIOM_UPSTREAM_ALLOW: "api.example.com, 127.0.0.1:8000" }),
  );
  const create = (id: string, baseUrl: string) => gateway.post("/api/assistants", { id, name: id, model: { provider: "openai", base_url: baseUrl } });

  it("accepts a listed host on any port, and a listed host:port on that port only", async () => {
    expect((await create("a1", "https://api.example.com/v1")).statusCode).toBe(201);
    expect((await create("a2", "http://API.example.com:9000/v1")).statusCode).toBe(201);
    expect((await create("a3", "http://127.0.0.1:8000/v1")).statusCode).toBe(201);
  });

  it("refuses hosts it does not list: internal addresses, other ports, subdomains", async () => {
    for (const [id, url] of [
      ["r1", "http://169.254.169.254/latest/meta-data"],
      ["r2", "http://127.0.0.1:5432/"],
      ["r3", "http://localhost:8000/v1"],
      ["r4", "https://evil.api.example.com/v1"],
    ]) {
      const answer = await create(id, url);
      expect(answer.statusCode, url).toBe(400);
      expect(answer.json()).toMatchObject({ code: "BASE_URL_NOT_ALLOWED" });
    }
    const stored = (await gateway.get("/api/assistants")).json().assistants.map((assistant: { id: string }) => assistant.id);
    expect(stored.filter((id: string) => id.startsWith("r"))).toEqual([]);
  });
});

describe("model API failures through the gateway", () => {
  const gateway = useGateway(
    async () => {},
    () => ({ AXIOM_UPSTREAM_TIMEOUT_MS: "300", AXIOM_UPSTREAM_MAX_RETRIES: "1" }),
  );

  /** Runs one message on a new assistant of `model` at `baseUrl`; the run's answer, its record and how long it took. */
  async function run(id: string, baseUrl: string, model: string) {
    expect((await gateway.post("/api/assistants", { id, name: id, model: { provider: "openai", base_url: baseUrl, model, api_key: "sk-test" } })).statusCode).toBe(201);
    expect((await gateway.post("/api/threads", { thread_id: `${id}-thread`, assistant_id: id })).statusCode).toBe(201);
    const startedAt = Date.now();
    const answer = await gateway.post("/api/runs", { assistant_id: id, thread_id: `${id}-thread`, message: "hello", mode: "wait" });
    const elapsedMs = Date.now() - startedAt;
    const [record] = (await gateway.get(`/api/threads/${id}-thread/runs`)).json().runs;
    return { answer: answer.json(), record, elapsedMs };
  }

  it("an unreachable base URL fails the run within the configured bound, its code in the answer and the run record", async () => {
    const { answer, record, elapsedMs } = await run("unreachable", await closedPortBaseUrl(), "m");
    expect(answer).toMatchObject({ status: "error", error: expect.stringMatching(/^UPSTREAM_UNREACHABLE: /) });
    expect(record).toMatchObject({ status: "error", error: expect.stringMatching(/^UPSTREAM_UNREACHABLE: /) });
    expect(elapsedMs).toBeLessThan(5_000);
  });

  it("a hung API times out as configured, tried again as many times as configured", async () => {
    const before = api.requestsFor("silent");
    const { answer, record, elapsedMs } = await run("hung", apiUrl, "silent");
    expect(answer).toMatchObject({ status: "error", error: expect.stringMatching(/^UPSTREAM_TIMEOUT: /) });
    expect(record).toMatchObject({ status: "error", error: expect.stringMatching(/^UPSTREAM_TIMEOUT: /) });
    expect(api.requestsFor("silent") - before).toBe(2);
    expect(elapsedMs).toBeLessThan(5_000);
  });

  it("streams the failure's code in the message_failed chunk", async () => {
    expect((await gateway.post("/api/assistants", { id: "refusing", name: "r", model: { provider: "openai", base_url: apiUrl, model: "fail-401", api_key: "sk-wrong" } })).statusCode).toBe(201);
    expect((await gateway.post("/api/threads", { thread_id: "refusing-thread", assistant_id: "refusing" })).statusCode).toBe(201);
    const streamed = await gateway.post("/api/runs", { assistant_id: "refusing", thread_id: "refusing-thread", message: "hello", mode: "stream" });
    const last = streamed.body.trim().split("\n").filter((line) => line.startsWith("data: ")).at(-1)!;
    expect(JSON.parse(last.slice("data: ".length))).toMatchObject({ type: "message_failed", data: { status: "error", code: "UPSTREAM_AUTH_FAILED" } });
  });
});
