// Runs of assistants whose catalog provider is of kind ollama or anthropic, against a real local
// server speaking OpenAI's chat completions: both are spoken to at their OpenAI-compatible path
// (`{root}/v1`, the base URL given with or without /v1), and neither is ever sent the built-in
// `openai` provider's fallback key (OPENAI_API_KEY), which is not theirs; nor is an `openai` provider
// at a base URL of the tenant's choosing, which could be the tenant's own server.
import { FakeOpenAi } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useGateway } from "./support";

const FALLBACK_KEY = "sk-operator-fallback";
const api = new FakeOpenAi();
let root = "";
beforeAll(async () => {
  root = (await api.start()).replace(/\/v1$/, "");
});
afterAll(() => api.stop());

describe("runs on an Ollama or Anthropic provider", () => {
  const { post } = useGateway(async () => {}, () => ({ OPENAI_API_KEY: FALLBACK_KEY }));
  let assistants = 0;

  /** A run of a new assistant on a new provider of `kind` naming `model`; the run's answer and the keys the API heard for it. */
  async function runVia(provider: Record<string, unknown>, model: string) {
    const id = `kind-run-${(assistants += 1)}`;
    expect((await post("/api/model-providers", { id, models: [model], ...provider })).statusCode).toBe(201);
    expect((await post("/api/assistants", { id, name: id, model: { provider: id } })).statusCode).toBe(201);
    expect((await post("/api/threads", { thread_id: id, assistant_id: id })).statusCode).toBe(201);
    const run = (await post("/api/runs", { assistant_id: id, thread_id: id, message: "hi", mode: "wait" })).json();
    return { run, keys: api.requests.filter((request) => request.body.model === model).map((request) => request.authorization) };
  }

  it.each([
    ["at its root", () => root],
    ["at its OpenAI-compatible /v1", () => `${root}/v1/`],
  ])("an Ollama server %s answers, asked with a key of no one's, never the fallback key", async (_where, baseUrl) => {
    const model = `llama3.2:${assistants}`;
    const { run, keys } = await runVia({ kind: "ollama", base_url: baseUrl() }, model);
    expect(run).toMatchObject({ status: "success", messages: [{ content: "hi" }, { content: "Hello from the fake API: hi" }] });
    expect(keys).toEqual(["Bearer ollama"]);
  });

  it("an Ollama server behind a proxy that wants a key gets the provider's", async () => {
    const { run, keys } = await runVia({ kind: "ollama", base_url: root, api_key: "sk-proxy" }, "llama-proxied");
    expect(run).toMatchObject({ status: "success" });
    expect(keys).toEqual(["Bearer sk-proxy"]);
  });

  it("Anthropic's API answers at its OpenAI-compatible /v1 with the provider's key", async () => {
    const { run, keys } = await runVia({ kind: "anthropic", base_url: root, api_key: "sk-ant-provider" }, "claude-test");
    expect(run).toMatchObject({ status: "success", messages: [{ content: "hi" }, { content: "Hello from the fake API: hi" }] });
    expect(keys).toEqual(["Bearer sk-ant-provider"]);
  });

  it("an Anthropic provider without a key fails its runs at once, UPSTREAM_AUTH_FAILED, the API never called", async () => {
    const { run, keys } = await runVia({ kind: "anthropic", base_url: root }, "claude-keyless");
    expect(run).toMatchObject({ status: "error", error: expect.stringMatching(/^UPSTREAM_AUTH_FAILED: No API key for Anthropic's API/) });
    expect(keys).toEqual([]);
  });

  it("an OpenAI provider at a base URL of the tenant's without a key fails its runs and its test, the operator's key never sent", async () => {
    const { run, keys } = await runVia({ kind: "openai", base_url: `${root}/v1` }, "gpt-elsewhere");
    expect(run).toMatchObject({ status: "error", error: expect.stringMatching(/^UPSTREAM_AUTH_FAILED: No API key.*OpenAI's API only/) });
    expect((await post(`/api/model-providers/kind-run-${assistants}/test`, {})).json()).toMatchObject({ reachable: false, code: "UPSTREAM_AUTH_FAILED" });
    expect(keys).toEqual([]);
    expect(api.requests.filter((request) => request.authorization === `Bearer ${FALLBACK_KEY}`)).toEqual([]);
  });
});
