// The catalogue's switches on both store kinds: PATCH …/models/{model} and a provider's `enabled`. A
// provider or model switched off is refused when an assistant is written (400 MODEL_DISABLED) and
// fails a run at once with that code, the API hearing nothing; switched on again, runs go through.
import { FakeOpenAi } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useGateway, useStoreEnv } from "./support";

const api = new FakeOpenAi();
let apiUrl = "";
beforeAll(async () => {
  apiUrl = await api.start();
  api.models = ["chat-a", "chat-b"];
});
afterAll(() => api.stop());

describe.each(["memory", "postgresql"])("model catalogue flags on %s stores", (stores) => {
  const storeEnv = useStoreEnv(stores);
  const gateway = useGateway(async () => {}, storeEnv);
  const { post, get } = gateway;
  const patch = (url: string, payload: unknown) =>
    gateway.app.inject({ method: "PATCH", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
  let threads = 0;
  const runOn = async (assistantId: string) => {
    const threadId = `thread-${(threads += 1)}`;
    expect((await post("/api/threads", { thread_id: threadId, assistant_id: assistantId })).statusCode).toBe(201);
    return (await post("/api/runs", { assistant_id: assistantId, thread_id: threadId, message: "hi", mode: "wait" })).json();
  };
  const provider = async (id: string) => {
    expect((await post("/api/model-providers", { id, kind: "openai", base_url: apiUrl, models: ["chat-a"], api_key: "sk-flags" })).statusCode).toBe(201);
    expect((await post(`/api/model-providers/${id}/discover`, {})).statusCode).toBe(200);
  };

  it("switches a discovered model off and on; a model never discovered is 404, a bad body 400", async () => {
    await provider("flags");
    const off = await patch("/api/model-providers/flags/models/chat-b", { enabled: false });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ provider_id: "flags", model: "chat-b", enabled: false, available: true });
    expect((await get("/api/model-providers/flags/models")).json().models.map((model: { enabled: boolean }) => model.enabled)).toEqual([true, false]);
    expect((await patch("/api/model-providers/flags/models/never-listed", { enabled: false })).json()).toMatchObject({ code: "NOT_FOUND" });
    expect((await patch("/api/model-providers/missing/models/chat-b", { enabled: false })).statusCode).toBe(404);
    for (const bad of [{}, { enabled: "no" }, { enabled: true, extra: 1 }]) {
      expect((await patch("/api/model-providers/flags/models/chat-b", bad)).json()).toMatchObject({ code: "INVALID_REQUEST" });
    }
    expect((await patch("/api/model-providers/flags/models/chat-b", { enabled: true })).json()).toMatchObject({ enabled: true });
  });

  it("addresses a model whose name holds / and : by its URL-encoded name", async () => {
    api.models = ["org/chat:8b"];
    try {
      await provider("slashed");
    } finally {
      api.models = ["chat-a", "chat-b"];
    }
    const answer = await patch(`/api/model-providers/slashed/models/${encodeURIComponent("org/chat:8b")}`, { enabled: false });
    expect(answer.json()).toMatchObject({ model: "org/chat:8b", enabled: false });
  });

  it("a provider switched off: assistants naming it refused, its assistants' runs fail at once with MODEL_DISABLED; on again, they answer", async () => {
    await provider("switched");
    expect((await post("/api/assistants", { id: "on-switched", name: "On", model: { provider: "switched", model: "chat-a" } })).statusCode).toBe(201);
    expect((await patch("/api/model-providers/switched", { enabled: false })).json()).toMatchObject({ enabled: false });
    const refused = await post("/api/assistants", { id: "refused-provider", name: "Refused", model: { provider: "switched" } });
    expect([refused.statusCode, refused.json().code]).toEqual([400, "MODEL_DISABLED"]);
    const before = api.requests.length;
    expect(await runOn("on-switched")).toMatchObject({ status: "error", error: expect.stringMatching(/^MODEL_DISABLED: Model provider "switched" is switched off/) });
    expect(api.requests.length).toBe(before);
    await patch("/api/model-providers/switched", { enabled: true });
    expect(await runOn("on-switched")).toMatchObject({ status: "success" });
  });

  it("a model switched off: assistants naming it (or defaulting to it) refused, runs on it fail at once; the provider's other models still run", async () => {
    await provider("per-model");
    expect((await post("/api/assistants", { id: "on-a", name: "A", model: { provider: "per-model", model: "chat-a" } })).statusCode).toBe(201);
    expect((await post("/api/assistants", { id: "on-b", name: "B", model: { provider: "per-model", model: "chat-b" } })).statusCode).toBe(201);
    await patch("/api/model-providers/per-model/models/chat-a", { enabled: false });
    for (const model of [{ provider: "per-model", model: "chat-a" }, { provider: "per-model" }]) {
      const refused = await post("/api/assistants", { id: "refused-model", name: "Refused", model });
      expect([refused.statusCode, refused.json().code]).toEqual([400, "MODEL_DISABLED"]);
    }
    const before = api.requestsFor("chat-a");
    expect(await runOn("on-a")).toMatchObject({ status: "error", error: expect.stringMatching(/^MODEL_DISABLED: Model "chat-a" of provider "per-model" is switched off/) });
    expect(api.requestsFor("chat-a")).toBe(before);
    expect(await runOn("on-b")).toMatchObject({ status: "success" });
  });
});
