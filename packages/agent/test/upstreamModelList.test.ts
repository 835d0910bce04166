// Reading an OpenAI-compatible model list from a real local server: an answer that never ends is cut
// at the bound, not read into memory to its end.
import { FakeModelListApi } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_MODEL_LIST_BYTES, fetchOpenAiModelList } from "../src/models/upstreamModelList";
import type { UpstreamPolicy } from "../src/models/upstreamPolicy";

const POLICY: UpstreamPolicy = { timeoutMs: 60_000, maxRetries: 0, egress: { localNetworks: true } };

describe("a model list", () => {
  const api = new FakeModelListApi();
  beforeAll(() => api.start());
  afterAll(() => api.stop());

  it("is read from the API, in its order", async () => {
    api.models = ["b-model", "a-model"];
    expect(await fetchOpenAiModelList({ kind: "openai", baseUrl: api.baseUrl("ok"), apiKey: "sk-local" }, POLICY)).toEqual(["b-model", "a-model"]);
  });

  it(`is refused past ${MAX_MODEL_LIST_BYTES / 1024 / 1024} MiB, however long the API would go on`, async () => {
    await expect(fetchOpenAiModelList({ kind: "openai", baseUrl: api.baseUrl("endless"), apiKey: "sk-local" }, POLICY)).rejects.toMatchObject({
      code: "UPSTREAM_INVALID_RESPONSE",
      message: "The model API's answer to GET /models is larger than 16 MiB",
    });
  });
});
