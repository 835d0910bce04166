// POST /api/model-providers/{id}/discover and GET …/models on both store kinds, against real local
// servers speaking each wire format (OpenAI's GET /v1/models, Ollama's GET /api/tags, Anthropic's
// paged GET /v1/models): the catalogue recorded (capped at 1,000, saying so), flags kept and vanished
// models marked across rediscovery; each upstream fault answered with its code and nothing recorded.
import { describe, expect, it } from "vitest";
import { MODEL_LIST_WIRES, useFakeModelApis } from "./fakeModelApis";
import { useGateway, useStoreEnv } from "./support";

const KEY = "sk-discovery-0123456789";
const apis = useFakeModelApis();

describe.each(["memory", "postgresql"])("model discovery on %s stores", (stores) => {
  const storeEnv = useStoreEnv(stores);
  const gateway = useGateway(async () => {}, () => ({ ...storeEnv(), ...apis.env() }));
  const api = apis.openai;
  const { post, get } = gateway;
  let providers = 0;

  /** A new provider of `kind` at `baseUrl`; its id. */
  async function providerAt(baseUrl: string, kind: (typeof MODEL_LIST_WIRES)[number] = "openai"): Promise<string> {
    const id = `provider-${(providers += 1)}`;
    expect((await post("/api/model-providers", { id, kind, base_url: baseUrl, api_key: KEY })).statusCode).toBe(201);
    return id;
  }
  const discover = (id: string) => post(`/api/model-providers/${id}/discover`, {});
  const catalogue = async (id: string) =>
    (await get(`/api/model-providers/${id}/models?limit=1000`)).json().models.map(({ model, enabled, available }: Record<string, unknown>) => ({ model, enabled, available }));

  it("records the listed models, enabled and available, listed by name and paged", async () => {
    api.models = ["gpt-b", "gpt-a", "gpt-c"];
    const id = await providerAt(api.baseUrl("ok"));
    const answer = await discover(id);
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ models_count: 3, added: 3, vanished: 0, listed_count: 3, truncated: false });
    expect(await catalogue(id)).toEqual(["gpt-a", "gpt-b", "gpt-c"].map((model) => ({ model, enabled: true, available: true })));
    const first = (await get(`/api/model-providers/${id}/models?limit=2`)).json();
    expect(first).toMatchObject({ models: [{ provider_id: id, model: "gpt-a" }, { model: "gpt-b" }], has_more: true });
    const second = (await get(`/api/model-providers/${id}/models?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`)).json();
    expect(second).toMatchObject({ models: [{ model: "gpt-c" }], next_cursor: null, has_more: false });
  });

  it("a rediscovery keeps the operator's flags and marks models that vanished upstream instead of deleting them", async () => {
    api.models = ["m1", "m2", "m3"];
    const id = await providerAt(api.baseUrl("ok"));
    await discover(id);
    expect(await gateway.context.stores.modelProviders.setModelEnabled("default", id, "m2", false)).toMatchObject({ enabled: false });
    expect(await gateway.context.stores.modelProviders.setModelEnabled("default", id, "m3", false)).toMatchObject({ enabled: false });
    api.models = ["m1", "m2", "m4"];
    expect((await discover(id)).json()).toEqual({ models_count: 3, added: 1, vanished: 1, listed_count: 3, truncated: false });
    expect(await catalogue(id)).toEqual([
      { model: "m1", enabled: true, available: true },
      { model: "m2", enabled: false, available: true },
      { model: "m3", enabled: false, available: false },
      { model: "m4", enabled: true, available: true },
    ]);
  });

  describe.each(MODEL_LIST_WIRES)("from an API of kind %s", (kind) => {
    const wireApi = apis[kind];

    it("records the listed models, enabled and available", async () => {
      wireApi.models = ["b-model:latest", "a-model:7b"];
      const id = await providerAt(wireApi.baseUrl("ok"), kind);
      expect((await discover(id)).json()).toEqual({ models_count: 2, added: 2, vanished: 0, listed_count: 2, truncated: false });
      expect(await catalogue(id)).toEqual(["a-model:7b", "b-model:latest"].map((model) => ({ model, enabled: true, available: true })));
    });

    it("an API listing 1,200 models: the first 1,000 in its order are recorded, and the answer says it cut", async () => {
      wireApi.models = Array.from({ length: 1_200 }, (_, index) => `bulk-${String(1_199 - index).padStart(4, "0")}`);
      const id = await providerAt(wireApi.baseUrl("ok"), kind);
      expect((await discover(id)).json()).toEqual({ models_count: 1_000, added: 1_000, vanished: 0, listed_count: 1_200, truncated: true });
      const recorded = await catalogue(id);
      expect(recorded).toHaveLength(1_000);
      // Listed descending: the API's first 1,000 are bulk-1199 … bulk-0200.
      expect(recorded[0].model).toBe("bulk-0200");
      expect(recorded.at(-1).model).toBe("bulk-1199");
    });

    it.each([
      ["a refused connection", "UPSTREAM_UNREACHABLE", 502, () => apis.closedBaseUrl()],
      ["a hang past the timeout", "UPSTREAM_TIMEOUT", 504, () => wireApi.baseUrl("silent")],
      ["401", "UPSTREAM_AUTH_FAILED", 502, () => wireApi.baseUrl("fail-401")],
      ["429 with Retry-After", "UPSTREAM_RATE_LIMITED", 503, () => wireApi.baseUrl("fail-429")],
      ["a 302 to an address the policy refuses", "UPSTREAM_REDIRECT_BLOCKED", 502, () => wireApi.baseUrl("redirect")],
      ["garbage instead of JSON", "UPSTREAM_INVALID_RESPONSE", 502, () => wireApi.baseUrl("garbage")],
      ["JSON that is no model list", "UPSTREAM_INVALID_RESPONSE", 502, () => wireApi.baseUrl("wrong-shape")],
    ])("%s: %s, nothing recorded, the key never echoed", async (_what, code, status, baseUrl) => {
      const id = await providerAt(baseUrl(), kind);
      const answer = await discover(id);
      expect(answer.statusCode).toBe(status);
      expect(answer.json()).toMatchObject({ code });
      expect(answer.body).not.toContain(KEY);
      expect(await catalogue(id)).toEqual([]);
    });
  });

  it("an Ollama base URL given with its OpenAI-compatible /v1 is read at the API's root, GET /api/tags", async () => {
    apis.ollama.models = ["llama3.2:latest"];
    const id = await providerAt(`${apis.ollama.baseUrl("ok")}/v1/`, "ollama");
    expect((await discover(id)).json()).toMatchObject({ models_count: 1, added: 1 });
    expect(apis.ollama.requests.at(-1)?.url).toBe("/ok/api/tags");
  });

  it("Anthropic's list is read page after page (after_id), every model of every page recorded", async () => {
    apis.anthropic.models = Array.from({ length: 7 }, (_, index) => `claude-${index}`);
    apis.anthropic.maxPageSize = 3;
    try {
      const before = apis.anthropic.requests.length;
      const id = await providerAt(apis.anthropic.baseUrl("ok"), "anthropic");
      expect((await discover(id)).json()).toEqual({ models_count: 7, added: 7, vanished: 0, listed_count: 7, truncated: false });
      expect(apis.anthropic.requests.slice(before).map(({ url }) => url)).toEqual([
        "/ok/v1/models?limit=1000",
        "/ok/v1/models?limit=1000&after_id=claude-2",
        "/ok/v1/models?limit=1000&after_id=claude-5",
      ]);
    } finally {
      apis.anthropic.maxPageSize = 1_000;
    }
  });

  it("Anthropic pages whose cursor does not move on are refused, UPSTREAM_INVALID_RESPONSE, not followed forever", async () => {
    apis.anthropic.models = ["claude-a"];
    const id = await providerAt(apis.anthropic.baseUrl("stuck"), "anthropic");
    const answer = await discover(id);
    expect(answer.statusCode).toBe(502);
    expect(answer.json()).toMatchObject({ code: "UPSTREAM_INVALID_RESPONSE" });
    expect(await catalogue(id)).toEqual([]);
  });

  it("a failed rediscovery leaves the catalogue as it was", async () => {
    api.models = ["kept"];
    const id = await providerAt(api.baseUrl("ok"));
    await discover(id);
    await gateway.context.stores.modelProviders.updateProvider("default", id, { baseUrl: api.baseUrl("garbage"), apiKey: KEY });
    expect((await discover(id)).json()).toMatchObject({ code: "UPSTREAM_INVALID_RESPONSE" });
    expect(await catalogue(id)).toEqual([{ model: "kept", enabled: true, available: true }]);
  });

  it("a missing provider is 404 NOT_FOUND for discovery and the catalogue; a scripted provider's own models are its list", async () => {
    expect((await discover("missing")).statusCode).toBe(404);
    expect((await get("/api/model-providers/missing/models")).json()).toMatchObject({ code: "NOT_FOUND" });
    expect((await post("/api/model-providers", { id: "scripted-catalogue", kind: "scripted", models: ["s2", "s1"] })).statusCode).toBe(201);
    expect((await discover("scripted-catalogue")).json()).toMatchObject({ models_count: 2, added: 2 });
    expect((await catalogue("scripted-catalogue")).map(({ model }: { model: string }) => model)).toEqual(["s1", "s2"]);
  });
});
