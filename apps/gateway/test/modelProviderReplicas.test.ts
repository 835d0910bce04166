// Assistants naming a tenant's model provider, on two gateways sharing one PostgreSQL database. A run
// reads the provider from the store when it builds its model, so nothing is cached per replica: a
// provider created (or changed) on A serves the next run on B, with no restart and no hydration.
import { randomBytes } from "node:crypto";
import { FakeOpenAi } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useGateway, useStoreEnv } from "./support";

const api = new FakeOpenAi();
let baseUrl: string;
beforeAll(async () => {
  baseUrl = await api.start();
});
afterAll(() => api.stop());

describe("a tenant's model provider across two gateways on one database", () => {
  const storeEnv = useStoreEnv("postgresql");
  // Both gateways seal with the same configured key, as replicas of one deployment do.
  const key = `v1:${randomBytes(32).toString("base64")}`;
  const env = () => ({ ...storeEnv(), LATTICE_ENCRYPTION_KEY: key });
  const a = useGateway(async () => {}, env);
  const b = useGateway(async () => {}, env);
  const patch = (url: string, payload: unknown) =>
    a.app.inject({ method: "PATCH", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
  const runOn = async (gateway: typeof a, threadId: string) => {
    expect((await gateway.post("/api/threads", { thread_id: threadId, assistant_id: "via-catalog" })).statusCode).toBe(201);
    const run = await gateway.post("/api/runs", { assistant_id: "via-catalog", thread_id: threadId, message: "hi", mode: "wait" });
    expect(run.statusCode).toBe(200);
    return run.json<{ status: string; messages: Array<{ content: string }> }>();
  };

  it("a provider and an assistant created on A serve a run on B; a key changed on A is what B sends next", async () => {
    const provider = { id: "team-llm", kind: "openai", base_url: baseUrl, models: ["fake-large"], api_key: "sk-first-key" };
    expect((await a.post("/api/model-providers", provider)).statusCode).toBe(201);
    expect((await a.post("/api/assistants", { id: "via-catalog", name: "Catalog", model: { provider: "team-llm" } })).statusCode).toBe(201);

    const keysSent = () => api.requests.filter((request) => request.body.model === "fake-large").map((request) => request.authorization);
    const first = await runOn(b, "t-first");
    expect(first).toMatchObject({ status: "success", messages: [{ content: "hi" }, { content: "Hello from the fake API: hi" }] });
    expect(keysSent()).toEqual(["Bearer sk-first-key"]);

    expect((await patch("/api/model-providers/team-llm", { api_key: "sk-second-key" })).statusCode).toBe(200);
    await runOn(b, "t-second");
    expect(keysSent()).toEqual(["Bearer sk-first-key", "Bearer sk-second-key"]);
  });

  it("refuses an assistant naming an unknown provider with 400 UNKNOWN_MODEL_PROVIDER, at create and at update, writing nothing", async () => {
    const created = await a.post("/api/assistants", { id: "dangling", name: "Dangling", model: { provider: "no-such-provider" } });
    expect(created.statusCode).toBe(400);
    expect(created.json()).toMatchObject({ code: "UNKNOWN_MODEL_PROVIDER" });
    expect((await b.get("/api/assistants/dangling")).statusCode).toBe(404);

    expect((await a.post("/api/assistants", { id: "kept", name: "Kept" })).statusCode).toBe(201);
    const changed = await patch("/api/assistants/kept", { model: { provider: "no-such-provider" } });
    expect(changed.statusCode).toBe(400);
    expect(changed.json()).toMatchObject({ code: "UNKNOWN_MODEL_PROVIDER" });
    expect((await b.get("/api/assistants/kept")).json().model).toEqual({ provider: "scripted" });
    // Another tenant's provider is unknown here too.
    expect((await b.post("/api/assistants", { name: "x", model: { provider: "team-llm" } }, { "x-tenant-id": "tenant-other" })).json()).toMatchObject({
      code: "UNKNOWN_MODEL_PROVIDER",
    });
  });
});
