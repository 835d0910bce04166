// Reading a provider's model list from real local servers speaking each wire format: an answer that
// never ends is cut at the bound, not read into memory to its end; Anthropic's pages are followed no
// further than the catalogue's cap needs; the built-in `openai` provider's fallback key goes to no
// other kind's API.
import { MAX_DISCOVERED_MODELS } from "@axiom-lattice/protocols";
import { FakeModelListApi } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_MODEL_LIST_BYTES, fetchModelList } from "../src/models/upstreamModelList";
import type { UpstreamPolicy } from "../src/models/upstreamPolicy";

const POLICY: UpstreamPolicy = { timeoutMs: 60_000, maxRetries: 0, egress: { localNetworks: true } };
const FALLBACK_KEY = "sk-operator-fallback";

describe("a model list", () => {
  const apis = { openai: new FakeModelListApi("openai"), ollama: new FakeModelListApi("ollama"), anthropic: new FakeModelListApi("anthropic") };
  beforeAll(() => Promise.all(Object.values(apis).map((api) => api.start())));
  afterAll(() => Promise.all(Object.values(apis).map((api) => api.stop())));

  it.each(["openai", "ollama", "anthropic"] as const)("is read from an API of kind %s, in its order", async (kind) => {
    apis[kind].models = ["b-model", "a-model"];
    expect(await fetchModelList({ kind, baseUrl: apis[kind].baseUrl("ok"), apiKey: "sk-local", models: [] }, POLICY)).toEqual(["b-model", "a-model"]);
  });

  it.each(["openai", "ollama", "anthropic"] as const)(
    `from an API of kind %s, is refused past ${MAX_MODEL_LIST_BYTES / 1024 / 1024} MiB, however long the API would go on`,
    async (kind) => {
      await expect(fetchModelList({ kind, baseUrl: apis[kind].baseUrl("endless"), apiKey: "sk-local", models: [] }, POLICY)).rejects.toMatchObject({
        code: "UPSTREAM_INVALID_RESPONSE",
        message: expect.stringMatching(/^The model API's answer to GET \/(models|api\/tags|v1\/models) is larger than 16 MiB$/),
      });
    },
  );

  it("of Anthropic's API is read page after page only until more than the cap was read", async () => {
    const api = apis.anthropic;
    api.models = Array.from({ length: 2_500 }, (_, index) => `claude-${index}`);
    api.maxPageSize = 500;
    try {
      const before = api.requests.length;
      const listed = await fetchModelList({ kind: "anthropic", baseUrl: api.baseUrl("ok"), apiKey: "sk-local", models: [] }, POLICY);
      // Three pages of 500 pass the cap of 1,000; the other two are never asked for.
      expect(listed).toEqual(api.models.slice(0, 1_500));
      expect(listed.length).toBeGreaterThan(MAX_DISCOVERED_MODELS);
      expect(api.requests.length - before).toBe(3);
    } finally {
      api.maxPageSize = 1_000;
    }
  });

  it("of an Ollama or Anthropic API never carries the built-in openai provider's fallback key", async () => {
    const ollamaBefore = apis.ollama.requests.length;
    await fetchModelList({ kind: "ollama", baseUrl: apis.ollama.baseUrl("ok"), models: [] }, POLICY, FALLBACK_KEY);
    expect(apis.ollama.requests.slice(ollamaBefore).map(({ headers }) => headers.authorization)).toEqual([undefined]);
    const anthropicBefore = apis.anthropic.requests.length;
    await expect(fetchModelList({ kind: "anthropic", baseUrl: apis.anthropic.baseUrl("ok"), models: [] }, POLICY, FALLBACK_KEY)).rejects.toMatchObject({
      code: "UPSTREAM_AUTH_FAILED",
    });
    expect(apis.anthropic.requests.length).toBe(anthropicBefore);
  });

  it("of a scripted provider is its own models, no API called", async () => {
    expect(await fetchModelList({ kind: "scripted", models: ["s1", "s2"] }, POLICY, FALLBACK_KEY)).toEqual(["s1", "s2"]);
  });
});
