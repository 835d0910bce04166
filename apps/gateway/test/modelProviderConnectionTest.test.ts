// POST /api/model-providers/{id}/test against real local servers speaking each wire format (OpenAI's
// GET /v1/models, Ollama's GET /api/tags, Anthropic's paged GET /v1/models), with each fault: only an
// upstream failure is "not reachable" (with its UPSTREAM_* code); a provider not found or a base URL
// the egress policy refuses outright stays an error.
import { describe, expect, it } from "vitest";
import { MODEL_LIST_WIRES, useFakeModelApis } from "./fakeModelApis";
import { useGateway } from "./support";

const KEY = "sk-connection-test-0123456789";
const apis = useFakeModelApis();

/** The headers each wire's list is asked with: the key as the API expects it, and nothing else of it. */
const AUTH_HEADERS = {
  openai: { authorization: `Bearer ${KEY}` },
  ollama: { authorization: `Bearer ${KEY}` },
  anthropic: { "x-api-key": KEY, "anthropic-version": "2023-06-01" },
};

describe("a model provider's connection test", () => {
  const gateway = useGateway(async () => {}, apis.env);
  const { post } = gateway;

  describe.each(MODEL_LIST_WIRES)("of kind %s", (kind) => {
    const api = apis[kind];
    let providers = 0;

    /** Adds a provider of the kind at `baseUrl` and tests it; the test's answer. */
    async function testAt(baseUrl: string) {
      const id = `${kind}-${(providers += 1)}`;
      expect((await post("/api/model-providers", { id, kind, base_url: baseUrl, api_key: KEY })).statusCode).toBe(201);
      const answer = await post(`/api/model-providers/${id}/test`, {});
      expect(answer.statusCode).toBe(200);
      expect(answer.body).not.toContain(KEY);
      return answer.json();
    }

    it("reaches an API that lists its models: how many, how long, called with the provider's key as the API takes it", async () => {
      api.models = ["model-a", "model-b", "model-c"];
      const before = api.requests.length;
      const result = await testAt(api.baseUrl("ok"));
      expect(result).toEqual({ reachable: true, latency_ms: expect.any(Number), models_count: 3 });
      const sent = api.requests.slice(before).map(({ headers }) => ({
        authorization: headers.authorization,
        "x-api-key": headers["x-api-key"],
        "anthropic-version": headers["anthropic-version"],
      }));
      expect(sent).toEqual([AUTH_HEADERS[kind]]);
    });

    it.each([
      ["a refused connection", "UPSTREAM_UNREACHABLE", () => apis.closedBaseUrl()],
      ["a hang past the timeout", "UPSTREAM_TIMEOUT", () => api.baseUrl("silent")],
      ["401", "UPSTREAM_AUTH_FAILED", () => api.baseUrl("fail-401")],
      ["429 with Retry-After", "UPSTREAM_RATE_LIMITED", () => api.baseUrl("fail-429")],
      ["garbage instead of JSON", "UPSTREAM_INVALID_RESPONSE", () => api.baseUrl("garbage")],
      ["JSON that is no model list", "UPSTREAM_INVALID_RESPONSE", () => api.baseUrl("wrong-shape")],
    ])("%s: not reachable, with %s", async (_what, code, baseUrl) => {
      const result = await testAt(baseUrl());
      expect(result).toEqual({ reachable: false, latency_ms: expect.any(Number), code, error: expect.any(String) });
    });

    it("a 302 to an address the policy refuses is not followed: not reachable, UPSTREAM_REDIRECT_BLOCKED; the target hears nothing", async () => {
      const result = await testAt(api.baseUrl("redirect"));
      expect(result).toEqual({
        reachable: false,
        latency_ms: expect.any(Number),
        code: "UPSTREAM_REDIRECT_BLOCKED",
        error: `${api.origin} redirected to ${new URL(apis.refusedTarget.origin).host}, which is refused: address 127.0.0.1 is not in AXIOM_UPSTREAM_ALLOW`,
      });
      expect(apis.refusedTarget.requests).toEqual([]);
    });
  });

  it("a stored base URL the policy refuses outright is an error, 400 BASE_URL_NOT_ALLOWED, not a verdict", async () => {
    await gateway.context.stores.modelProviders.createProvider("default", { id: "stored-refused", kind: "openai", baseUrl: "http://10.0.0.1/v1", apiKey: KEY });
    const answer = await post("/api/model-providers/stored-refused/test", {});
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ code: "BASE_URL_NOT_ALLOWED" });
  });

  it("an Anthropic provider without a key is not reachable, UPSTREAM_AUTH_FAILED, and the API is not called", async () => {
    const before = apis.anthropic.requests.length;
    expect((await post("/api/model-providers", { id: "anthropic-keyless", kind: "anthropic", base_url: apis.anthropic.baseUrl("ok") })).statusCode).toBe(201);
    expect((await post("/api/model-providers/anthropic-keyless/test", {})).json()).toMatchObject({ reachable: false, code: "UPSTREAM_AUTH_FAILED" });
    expect(apis.anthropic.requests.length).toBe(before);
  });

  it("a scripted provider is the built-in model: reachable, its own models counted", async () => {
    expect((await post("/api/model-providers", { id: "scripted-one", kind: "scripted", models: ["s1", "s2"] })).statusCode).toBe(201);
    expect((await post("/api/model-providers/scripted-one/test", {})).json()).toEqual({ reachable: true, latency_ms: 0, models_count: 2 });
  });

  it("a provider that does not exist is 404 NOT_FOUND", async () => {
    const answer = await post("/api/model-providers/missing/test", {});
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toMatchObject({ code: "NOT_FOUND" });
  });
});
