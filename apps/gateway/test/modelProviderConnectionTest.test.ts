// POST /api/model-providers/{id}/test against a real local server speaking OpenAI's GET /v1/models,
// with each fault: only an upstream failure is "not reachable" (with its UPSTREAM_* code); a
// provider not found or a base URL the egress policy refuses outright stays an error.
import { FakeModelListApi, closedPortBaseUrl } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useGateway } from "./support";

const KEY = "sk-connection-test-0123456789";
const api = new FakeModelListApi();
// Where the fake's `redirect` points: a server the egress policy does not list, which must hear nothing.
const refusedTarget = new FakeModelListApi();
let closedBaseUrl = "";

beforeAll(async () => {
  await Promise.all([api.start(), refusedTarget.start()]);
  api.redirectTo = `${refusedTarget.baseUrl("ok")}/models`;
  closedBaseUrl = await closedPortBaseUrl();
});
afterAll(() => Promise.all([api.stop(), refusedTarget.stop()]));

describe("a model provider's connection test", () => {
  // The allow-list names the fake and the closed port only: the redirect target is refused.
  const gateway = useGateway(
    async () => {},
    () => ({ AXIOM_UPSTREAM_ALLOW: [api.origin, closedBaseUrl].map((url) => new URL(url).host).join(","), AXIOM_UPSTREAM_TIMEOUT_MS: "2000" }),
  );
  const { post } = gateway;

  /** Adds a provider at `baseUrl` and tests it; the test's answer. */
  async function testAt(id: string, baseUrl: string, apiKey = KEY) {
    expect((await post("/api/model-providers", { id, kind: "openai", base_url: baseUrl, api_key: apiKey })).statusCode).toBe(201);
    const answer = await post(`/api/model-providers/${id}/test`, {});
    expect(answer.statusCode).toBe(200);
    expect(answer.body).not.toContain(KEY);
    return answer.json();
  }

  it("reaches an API that lists its models: how many, how long, called with the provider's key", async () => {
    api.models = ["model-a", "model-b", "model-c"];
    const before = api.authorizations.length;
    const result = await testAt("reachable", api.baseUrl("ok"));
    expect(result).toEqual({ reachable: true, latency_ms: expect.any(Number), models_count: 3 });
    expect(api.authorizations.slice(before)).toEqual([`Bearer ${KEY}`]);
  });

  it.each([
    ["a refused connection", "UPSTREAM_UNREACHABLE", () => closedBaseUrl],
    ["a hang past the timeout", "UPSTREAM_TIMEOUT", () => api.baseUrl("silent")],
    ["401", "UPSTREAM_AUTH_FAILED", () => api.baseUrl("fail-401")],
    ["429 with Retry-After", "UPSTREAM_RATE_LIMITED", () => api.baseUrl("fail-429")],
    ["garbage instead of JSON", "UPSTREAM_INVALID_RESPONSE", () => api.baseUrl("garbage")],
    ["JSON that is no model list", "UPSTREAM_INVALID_RESPONSE", () => api.baseUrl("wrong-shape")],
  ])("%s: not reachable, with %s", async (what, code, baseUrl) => {
    const result = await testAt(`fault-${what.replace(/\W+/g, "-")}`, baseUrl());
    expect(result).toEqual({ reachable: false, latency_ms: expect.any(Number), code, error: expect.any(String) });
  });

  it("a 302 to an address the policy refuses is not followed: not reachable, UPSTREAM_REDIRECT_BLOCKED; the target hears nothing", async () => {
    const result = await testAt("redirected", api.baseUrl("redirect"));
    expect(result).toEqual({
      reachable: false,
      latency_ms: expect.any(Number),
      code: "UPSTREAM_REDIRECT_BLOCKED",
      error: `${api.origin} redirected to ${new URL(refusedTarget.origin).host}, which is refused: address 127.0.0.1 is not in AXIOM_UPSTREAM_ALLOW`,
    });
    expect(refusedTarget.authorizations).toEqual([]);
  });

  it("a stored base URL the policy refuses outright is an error, 400 BASE_URL_NOT_ALLOWED, not a verdict", async () => {
    await gateway.context.stores.modelProviders.createProvider("default", { id: "stored-refused", kind: "openai", baseUrl: "http://10.0.0.1/v1", apiKey: KEY });
    const answer = await post("/api/model-providers/stored-refused/test", {});
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ code: "BASE_URL_NOT_ALLOWED" });
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
